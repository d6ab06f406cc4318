import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { usableReset } from '../../recovery/recovery.decider';
import { RecoveryWrites, readRecoveryToken } from '../../recovery/recovery-writes';
import { PasswordResetView } from '../../recovery/recovery.views';
import { CheckPasswordResetCommand } from './check-password-reset.command';

export const invalidResetToken = () => new DomainRefusal('invalid_token', 'This password reset link was used, replaced by a newer one or has expired.', 'token');

/**
 * Checks a reset link (POST /password-resets/check; decision 0038) before the person types a new
 * password: its account's address, until when it works, and the hold of an undone e-mail change;
 * 400 invalid_token when used, replaced, expired or malformed. Writes nothing.
 */
@CommandHandler(CheckPasswordResetCommand)
export class CheckPasswordResetHandler implements ICommandHandler<CheckPasswordResetCommand, PasswordResetView> {
  constructor(private readonly writes: RecoveryWrites) {}

  async execute({ token }: CheckPasswordResetCommand): Promise<PasswordResetView> {
    const named = readRecoveryToken(token);
    if (named === null) throw invalidResetToken();
    const state = await this.writes.state(named.accountId);
    const now = this.writes.now();
    const reset = usableReset(state, named.hash, now);
    const held = state.holdUntil !== null && now.getTime() < Date.parse(state.holdUntil);
    return { kind: 'password_reset', email: state.account!.email, expires_at: reset.expiresAt, hold_until: held ? state.holdUntil : null };
  }
}
