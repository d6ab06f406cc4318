import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { AccountView } from '../../views';
import type { ChangePasswordRequest } from './change-password.dto';

/** POST /me/password: the current password checked (or, for a person without one, the step-up), the new one set, the person's other sessions ended. */
export class ChangePasswordCommand extends Command<AccountView> {
  constructor(
    readonly accountId: string,
    readonly sessionId: string,
    readonly input: ChangePasswordRequest,
    readonly meta: WriteMeta = {},
    /** The session stepped up within 15 minutes (@SteppedUp): how a person without a password proves it is them (decision 0037, addendum of 2026-11-29). */
    readonly steppedUp = false,
  ) {
    super();
  }
}
