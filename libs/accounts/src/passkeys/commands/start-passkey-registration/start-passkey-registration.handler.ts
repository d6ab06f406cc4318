import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { DomainRefusal } from '@lib/domain';
import { AccountsReadModel } from '../../../accounts.read-model';
import { WebauthnChallenges } from '../../challenges';
import { PASSKEYS_MAX } from '../../passkey.decider';
import { PasskeysReadModel } from '../../passkeys.read-model';
import { registrationOptions } from '../../webauthn';
import { StartPasskeyRegistrationCommand } from './start-passkey-registration.command';

/**
 * Starts adding a passkey (decision 0037): a person with 10 is 409 passkey_limit at once; else a
 * new challenge bound to the session (valid five minutes, single use), and the creation options
 * (discoverable credential, user verification required, attestation none, the person's passkeys
 * excluded).
 */
@CommandHandler(StartPasskeyRegistrationCommand)
export class StartPasskeyRegistrationHandler implements ICommandHandler<StartPasskeyRegistrationCommand, PublicKeyCredentialCreationOptionsJSON> {
  constructor(
    private readonly accounts: AccountsReadModel,
    private readonly passkeys: PasskeysReadModel,
    private readonly challenges: WebauthnChallenges,
  ) {}

  async execute({ accountId, sessionId, rp }: StartPasskeyRegistrationCommand): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const account = await this.accounts.byId(accountId);
    if (account === null) throw new DomainRefusal('not_found', 'No account with this id.');
    const existing = await this.passkeys.stored(accountId);
    if (existing.length >= PASSKEYS_MAX) throw new DomainRefusal('passkey_limit', `An account has at most ${PASSKEYS_MAX} passkeys: remove one first.`);
    const challenge = await this.challenges.issue({ purpose: 'register', sessionId }, accountId);
    return registrationOptions(rp, account, existing, challenge);
  }
}
