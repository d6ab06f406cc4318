import { Query } from '@nestjs/cqrs';
import type { SendContext } from './get-send-context.handler';

/** GET /wallet/send-context: what a dashboard needs to build and sign a send from one of the wallet's addresses (decision 0040). */
export class GetSendContextQuery extends Query<SendContext> {
  constructor(
    readonly business: { id: string; simulated: boolean },
    readonly query: Record<string, unknown>,
  ) {
    super();
  }
}
