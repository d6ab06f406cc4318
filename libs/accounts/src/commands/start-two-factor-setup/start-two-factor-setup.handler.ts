import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { newId } from '@lib/http';
import { TwoFactorWrites } from '../../two-factor/two-factor-writes';
import { newTotpSecret, totpQrCode, totpUri } from '../../two-factor/totp';
import { TOTP_VAULT, TotpVault } from '../../two-factor/totp-vault';
import { TwoFactorSetupView } from '../../two-factor/views';
import { StartTwoFactorSetupCommand } from './start-two-factor-setup.command';

/**
 * Begins turning two-step sign-in on (decision 0036): already on → 409 two_factor_enabled;
 * else a new 160-bit secret is sealed in the vault (the person's earlier, unused setups are
 * forgotten), TwoFactorSetupStarted names it with this session and its end (10 minutes), and the
 * answer carries the secret, its otpauth:// URI and QR code — the only place they ever appear.
 */
@CommandHandler(StartTwoFactorSetupCommand)
export class StartTwoFactorSetupHandler implements ICommandHandler<StartTwoFactorSetupCommand, TwoFactorSetupView> {
  constructor(
    private readonly writes: TwoFactorWrites,
    @Inject(TOTP_VAULT) private readonly vault: TotpVault,
  ) {}

  async execute({ accountId, email, sessionId, meta }: StartTwoFactorSetupCommand): Promise<TwoFactorSetupView> {
    const setupId = newId('tfs');
    const secret = newTotpSecret();
    const result = await this.writes.decide(accountId, { type: 'StartTwoFactorSetup', setupId, sessionId }, meta);
    // sealed once the decider accepted (already on: nothing kept); a crash in between leaves a setup without a secret: two_factor_setup_required on enabling
    await this.vault.seal(setupId, accountId, secret);
    await this.vault.forget(accountId, setupId);
    const uri = totpUri(secret, email);
    return { kind: 'two_factor_setup', secret, otpauth_uri: uri, qr_code: await totpQrCode(uri), expires_at: result.state.setup!.expiresAt };
  }
}
