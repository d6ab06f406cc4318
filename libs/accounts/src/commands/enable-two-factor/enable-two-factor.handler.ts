import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { CurrentPassword } from '../../app/current-password';
import { RECOVERY_CODE_COUNT, setupFor } from '../../two-factor/two-factor.decider';
import { TwoFactorWrites } from '../../two-factor/two-factor-writes';
import { newRecoveryCodes, normalRecoveryCode, normalTotpCode, recoveryCodeHash, totpStep } from '../../two-factor/totp';
import { TOTP_VAULT, TotpVault } from '../../two-factor/totp-vault';
import { TwoFactorEnabledView, twoFactorView } from '../../two-factor/views';
import { EnableTwoFactorCommand } from './enable-two-factor.command';

const setupRequired = () => new DomainRefusal('two_factor_setup_required', 'Start the setup in this session first (its QR code is valid 10 minutes).');

/**
 * Turns two-step sign-in on (decision 0036), in this order: already on → 409
 * two_factor_enabled; no setup started in this session, or older than 10 minutes → 409
 * two_factor_setup_required; the current password (the session's ladder, 400
 * invalid_credentials); the code against the setup's secret (malformed or wrong → 400
 * invalid_code on `code`; not counted on the two-step lock: the password guards this route).
 * Then TwoFactorEnabled with 10 recovery codes' hashes and the code's step (not usable again to
 * sign in), the person's other secrets forgotten, and the codes answered once.
 */
@CommandHandler(EnableTwoFactorCommand)
export class EnableTwoFactorHandler implements ICommandHandler<EnableTwoFactorCommand, TwoFactorEnabledView> {
  constructor(
    private readonly writes: TwoFactorWrites,
    private readonly password: CurrentPassword,
    @Inject(TOTP_VAULT) private readonly vault: TotpVault,
  ) {}

  async execute({ accountId, sessionId, input, meta }: EnableTwoFactorCommand): Promise<TwoFactorEnabledView> {
    const state = await this.writes.state(accountId);
    if (state.enabled !== null) throw new DomainRefusal('two_factor_enabled', 'Two-step sign-in is already on.');
    const setup = setupFor(state, sessionId, this.writes.now());
    if (setup === null) throw setupRequired();
    await this.password.check(accountId, sessionId, input.current_password);
    const secret = await this.vault.secret(setup.id, accountId);
    if (secret === null) throw setupRequired();
    const code = normalTotpCode(input.code);
    const step = code === null ? null : await totpStep(secret, code, this.writes.now(), null);
    if (step === null) throw new DomainRefusal('invalid_code', 'The code does not match the setup’s secret: check the authenticator app’s time and try the code it shows now.', 'code');
    const recoveryCodes = newRecoveryCodes(RECOVERY_CODE_COUNT);
    const hashes = recoveryCodes.map((c) => recoveryCodeHash(accountId, normalRecoveryCode(c)!));
    const result = await this.writes.decide(accountId, { type: 'EnableTwoFactor', setupId: setup.id, sessionId, timeStep: step, recoveryCodeHashes: hashes }, meta);
    await this.vault.forget(accountId, setup.id);
    return { ...twoFactorView(result.state), recovery_codes: recoveryCodes };
  }
}
