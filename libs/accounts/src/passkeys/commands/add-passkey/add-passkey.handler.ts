import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { newId } from '@lib/http';
import { PasskeyWrites } from '../../app/passkey-writes';
import { WebauthnChallenges } from '../../challenges';
import { PasskeyView, PasskeysReadModel } from '../../passkeys.read-model';
import { passkeyFailed, verifyRegistration } from '../../webauthn';
import { AddPasskeyCommand } from './add-passkey.command';

const exists = () => new DomainRefusal('passkey_exists', 'This passkey is already on an account.');

/**
 * Adds a passkey (decision 0037): the session's registration challenge taken (none, used or
 * older than five minutes → 400 passkey_failed), the response verified for this relying party
 * with user verification (else 400 passkey_failed), a credential already on any account → 409
 * passkey_exists, then the person's decider: at most 10 (409 passkey_limit).
 */
@CommandHandler(AddPasskeyCommand)
export class AddPasskeyHandler implements ICommandHandler<AddPasskeyCommand, PasskeyView> {
  constructor(
    private readonly writes: PasskeyWrites,
    private readonly read: PasskeysReadModel,
    private readonly challenges: WebauthnChallenges,
  ) {}

  async execute({ accountId, sessionId, input, rp, meta }: AddPasskeyCommand): Promise<PasskeyView> {
    const taken = await this.challenges.take({ purpose: 'register', sessionId });
    if (taken === null || taken.accountId !== accountId) throw passkeyFailed('No registration is waiting for this answer (or it is older than five minutes): ask for new options.');
    const info = await verifyRegistration(rp, input.credential, taken.challenge);
    const credentialId = info.credential.id;
    if ((await this.read.byCredential(credentialId)) !== null) throw exists();
    const passkeyId = newId('pky');
    await this.writes.run(
      accountId,
      {
        type: 'AddPasskey',
        passkey: {
          passkey_id: passkeyId,
          credential_id: credentialId,
          public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
          counter: info.credential.counter,
          transports: [...(info.credential.transports ?? input.credential.response.transports ?? [])].map(String).slice(0, 10),
          name: input.name ?? 'Passkey',
          device_type: info.credentialDeviceType,
          backed_up: info.credentialBackedUp,
        },
      },
      meta,
    );
    const view = await this.read.one(accountId, passkeyId);
    if (view === null) throw exists(); // another account took the credential in between (the projection's unique index)
    return view;
  }
}
