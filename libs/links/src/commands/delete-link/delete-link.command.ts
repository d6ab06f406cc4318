import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';

/** DELETE /links/{id}: answers { kind: 'link'; id: string; deleted: true }. */
export class DeleteLinkCommand extends Command<{ kind: 'link'; id: string; deleted: true }> {
  constructor(
    readonly businessId: string,
    readonly linkId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
