import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { CurrentPassword } from '../../app/current-password';
import { TwoFactorCodes } from '../../two-factor/two-factor-codes';
import { TwoFactorWrites } from '../../two-factor/two-factor-writes';
import { TOTP_VAULT, TotpVault } from '../../two-factor/totp-vault';
import { TwoFactorView, twoFactorView } from '../../two-factor/views';
import { DisableTwoFactorCommand } from './disable-two-factor.command';

/**
 * Turns two-step sign-in off (decision 0036): off already → 409 two_factor_disabled; the
 * current password (the session's ladder, 400 invalid_credentials); a second factor, checked as
 * at sign-in (the person's two-step lock, 400 invalid_code) — so a stolen session with a known
 * password still cannot remove it. Then TwoFactorDisabled, and the secret is deleted from the vault.
 */
@CommandHandler(DisableTwoFactorCommand)
export class DisableTwoFactorHandler implements ICommandHandler<DisableTwoFactorCommand, TwoFactorView> {
  constructor(
    private readonly writes: TwoFactorWrites,
    private readonly password: CurrentPassword,
    private readonly codes: TwoFactorCodes,
    @Inject(TOTP_VAULT) private readonly vault: TotpVault,
  ) {}

  async execute({ accountId, sessionId, input, meta }: DisableTwoFactorCommand): Promise<TwoFactorView> {
    const state = await this.writes.state(accountId);
    if (state.enabled === null) throw new DomainRefusal('two_factor_disabled', 'Two-step sign-in is off.');
    await this.password.check(accountId, sessionId, input.current_password);
    const result = await this.codes.prove(accountId, state.enabled, input, this.writes.now(), (proof) => this.writes.decide(accountId, { type: 'DisableTwoFactor', proof }, meta));
    await this.vault.forget(accountId, null);
    return twoFactorView(result.state);
  }
}
