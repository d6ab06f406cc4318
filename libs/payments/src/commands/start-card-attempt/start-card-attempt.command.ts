import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ActingFor } from '../../app/access';
import type { StartCardAttemptRequest } from './start-card-attempt.dto';

/**
 * POST /checkouts/{id}/card-attempts: the customer pays on the checkout's next route; the
 * processor creates its secure page. `serviceOrigin`: where this service is reached (the
 * simulated processors serve their pages from it).
 */
export class StartCardAttemptCommand extends Command<void> {
  constructor(
    readonly checkoutId: string,
    readonly input: StartCardAttemptRequest,
    readonly actingFor: ActingFor,
    readonly serviceOrigin: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
