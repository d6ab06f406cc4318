import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { PasswordOrStepUp } from '../app/current-password';

/**
 * A change of the signed-in person's own account that they prove with `current_password` or,
 * having no password, with a recent step-up (POST /me/password, POST /me/email; decision 0037,
 * addendum of 2026-11-29): what `CurrentPassword.checkOrStepUp` checks before the use case goes on.
 */
export abstract class PasswordOrStepUpCommand<TInput extends { current_password?: string }, TResult> extends Command<TResult> implements PasswordOrStepUp {
  constructor(
    readonly accountId: string,
    readonly sessionId: string,
    readonly input: TInput,
    readonly meta: WriteMeta = {},
    /** The session stepped up within 15 minutes (@SteppedUp): how a person without a password proves it is them (decision 0037, addendum of 2026-11-29). */
    readonly steppedUp = false,
  ) {
    super();
  }
}
