import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { PasswordResetView } from '../../recovery/recovery.views';
import type { ConfirmPasswordResetRequest } from './confirm-password-reset.dto';

/** POST /password-resets/confirm: the new password set through a reset link. */
export class ConfirmPasswordResetCommand extends Command<PasswordResetView> {
  constructor(
    readonly input: ConfirmPasswordResetRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
