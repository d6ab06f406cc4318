import { Command } from '@nestjs/cqrs';
import type { PasswordResetView } from '../../recovery/recovery.views';

/** POST /password-resets/check: whether a reset link can still be used. */
export class CheckPasswordResetCommand extends Command<PasswordResetView> {
  constructor(readonly token: string) {
    super();
  }
}
