import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { Business } from '../../views';

/**
 * An operator suspends a business (`input`: `{reason}`, checked against SuspendBusinessDto):
 * it creates no payments and opens no checkouts until reinstated; open checkouts can finish.
 * `meta.actor` is the operator (operatorActor).
 */
export class SuspendBusinessCommand extends Command<Business> {
  constructor(
    readonly businessId: string,
    readonly input: unknown,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
