import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { newToken, tokenHash } from '../../../app/secrets';
import { WebauthnChallenges } from '../../challenges';
import { authenticationOptions } from '../../webauthn';
import { StartPasskeySignInCommand } from './start-passkey-sign-in.command';

/** A sign-in challenge for this browser (decision 0037): no allowCredentials (the passkey names its person), user verification required. */
@CommandHandler(StartPasskeySignInCommand)
export class StartPasskeySignInHandler implements ICommandHandler<StartPasskeySignInCommand, { options: PublicKeyCredentialRequestOptionsJSON; browserToken: string }> {
  constructor(private readonly challenges: WebauthnChallenges) {}

  async execute({ rp }: StartPasskeySignInCommand) {
    const browserToken = newToken();
    const challenge = await this.challenges.issue({ purpose: 'sign_in', browserHash: tokenHash(browserToken) }, null);
    return { options: await authenticationOptions(rp, challenge), browserToken };
  }
}
