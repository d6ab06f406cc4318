import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { emailKey } from '../../accounts.projector';
import { ACCOUNT_PASSWORDS, AccountPasswords, PASSWORD_FAILURES, PasswordFailures } from '../../ports';
import { TOTP_VAULT, TotpVault } from '../../two-factor/totp-vault';
import { RecoveryWrites, readRecoveryToken } from '../../recovery/recovery-writes';
import { PasswordResetView } from '../../recovery/recovery.views';
import { invalidResetToken } from '../check-password-reset/check-password-reset.handler';
import { ConfirmPasswordResetCommand } from './confirm-password-reset.command';

/**
 * Sets a new password through a reset link (POST /password-resets/confirm; decision 0038): the
 * link must be usable (400 invalid_token) and no hold running (409 reset_on_hold with
 * Retry-After), checked before the policy (400 weak_password); then the new password
 * (AccountPasswordChanged), the link used (PasswordResetCompleted), every session of the person
 * ended, and the address's failed-password count cleared — a password disabled after 100
 * failures, or by an undone e-mail change, works again. The reset that lifts an undo's lock
 * also removes any passkey and two-step sign-in present (only a session racing the undo could
 * have added one; addendum of 2026-11-28) and deletes the person's TOTP secrets.
 */
@CommandHandler(ConfirmPasswordResetCommand)
export class ConfirmPasswordResetHandler implements ICommandHandler<ConfirmPasswordResetCommand, PasswordResetView> {
  constructor(
    private readonly writes: RecoveryWrites,
    @Inject(ACCOUNT_PASSWORDS) private readonly passwords: AccountPasswords,
    @Inject(PASSWORD_FAILURES) private readonly failures: PasswordFailures,
    @Inject(TOTP_VAULT) private readonly vault: TotpVault,
  ) {}

  async execute({ input, meta }: ConfirmPasswordResetCommand): Promise<PasswordResetView> {
    const named = readRecoveryToken(input.token);
    if (named === null) throw invalidResetToken();
    const state = await this.writes.state(named.accountId);
    const now = this.writes.now();
    this.writes.probe(state, { type: 'CompletePasswordReset', tokenHash: named.hash, passwordHash: '' }, now); // invalid_token, reset_on_hold before anything is spent
    const account = state.account!;
    const expiresAt = state.reset!.expiresAt;
    await this.passwords.assertStrong(input.new_password, 'new_password', { email: account.email });
    const passwordHash = await this.passwords.hash(input.new_password);
    const run = await this.writes.run(account.id, { type: 'CompletePasswordReset', tokenHash: named.hash, passwordHash }, { ...meta, actor: { kind: 'person', id: account.id, name: null } }, now);
    if (run.before.resetRequired) await this.vault.forget(account.id, null);
    await this.failures.clear({ kind: 'email', email: emailKey(account.email), browser: null });
    return { kind: 'password_reset', email: account.email, expires_at: expiresAt, hold_until: null };
  }
}
