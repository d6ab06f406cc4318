import { Command } from '@nestjs/cqrs';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { RelyingParty } from '../../webauthn';

/**
 * POST /passkeys/authentication/options: options for navigator.credentials.get() with a
 * discoverable credential, the challenge bound to the browser by a new `webauthn` cookie token
 * (answered with the options; the controller sets the cookie).
 */
export class StartPasskeySignInCommand extends Command<{ options: PublicKeyCredentialRequestOptionsJSON; browserToken: string }> {
  constructor(readonly rp: RelyingParty) {
    super();
  }
}
