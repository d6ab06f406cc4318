import { Command } from '@nestjs/cqrs';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import type { BrowserContext } from '../../../commands/account-input';
import type { RelyingParty } from '../../webauthn';

/** POST /accounts/passkey-options: the creation options of a passkey sign-up's passkey, bound to the sign-up, asked in the browser that started it. */
export class StartSignupPasskeyCommand extends Command<PublicKeyCredentialCreationOptionsJSON> {
  constructor(
    readonly signupId: string,
    readonly browser: BrowserContext,
    readonly rp: RelyingParty,
  ) {
    super();
  }
}
