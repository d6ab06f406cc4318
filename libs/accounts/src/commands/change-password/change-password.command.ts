import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { AccountView } from '../../views';
import type { ChangePasswordRequest } from './change-password.dto';

/** POST /me/password: the current password checked, the new one set, the person's other sessions ended. */
export class ChangePasswordCommand extends Command<AccountView> {
  constructor(
    readonly accountId: string,
    readonly sessionId: string,
    readonly input: ChangePasswordRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
