import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { DomainRefusal } from '@lib/domain';
import { AccountWrites } from '../../../app/account-writes';
import { tokenHash } from '../../../app/secrets';
import { openSignup, signupBrowserRequired } from '../../../signup.decider';
import { isSignupId } from '../../../stream-categories';
import { WebauthnChallenges } from '../../challenges';
import { registrationOptions } from '../../webauthn';
import { StartSignupPasskeyCommand } from './start-signup-passkey.command';

const expired = () => new DomainRefusal('verification_expired', 'This sign-up is finished, replaced by a newer one, or older than a day: sign up again.');

/**
 * The passkey of a passkey sign-up, asked for (decision 0037): the sign-up still open (else 409
 * verification_expired, as at verify), in the browser that started it (else 400
 * signup_browser_required), one without a password (a password sign-up adds passkeys once signed
 * in: 400 invalid_request). A new challenge bound to the sign-up (five minutes, single use; a
 * newer one replaces it) and the creation options: the user is the account the sign-up will open
 * (its id chosen at POST /accounts, so options asked again name the same user and the
 * authenticator replaces its credential rather than keeping two), a discoverable credential with
 * user verification, as POST /me/passkeys/registration/options.
 */
@CommandHandler(StartSignupPasskeyCommand)
export class StartSignupPasskeyHandler implements ICommandHandler<StartSignupPasskeyCommand, PublicKeyCredentialCreationOptionsJSON> {
  constructor(
    private readonly writes: AccountWrites,
    private readonly challenges: WebauthnChallenges,
  ) {}

  async execute({ signupId, browser, rp }: StartSignupPasskeyCommand): Promise<PublicKeyCredentialCreationOptionsJSON> {
    if (!isSignupId(signupId)) throw expired();
    const state = await this.writes.signupState(signupId);
    if (state.signup === null) throw expired();
    const replaced = (await this.writes.emailState(state.signup.email)).pendingSignup !== signupId;
    const { signup } = openSignup(state, replaced, this.writes.now());
    if (browser.signupToken === null || tokenHash(browser.signupToken) !== signup.browserHash) throw signupBrowserRequired();
    if (signup.passwordHash !== null || signup.accountId === null) {
      throw new DomainRefusal('invalid_request', 'This sign-up has a password: verify it with the code, then add passkeys (POST /me/passkeys).', 'signup_id');
    }
    const challenge = await this.challenges.issue({ purpose: 'sign_up', signupId }, signup.accountId);
    return registrationOptions(rp, { id: signup.accountId, email: signup.email }, [], challenge);
  }
}
