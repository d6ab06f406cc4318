import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { PasswordResetRequestView } from '../../recovery/recovery.views';
import type { RequestPasswordResetRequest } from './request-password-reset.dto';

/** POST /password-resets: a reset link e-mailed to the account using this address, if any. */
export class RequestPasswordResetCommand extends Command<PasswordResetRequestView> {
  constructor(
    readonly input: RequestPasswordResetRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
