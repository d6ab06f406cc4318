import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { EmailChangeUndoView } from '../../recovery/recovery.views';

/** POST /email-changes/undo: the old address put back through the link e-mailed to it. */
export class UndoEmailChangeCommand extends Command<EmailChangeUndoView> {
  constructor(
    readonly token: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
