import { Inject, Injectable } from '@nestjs/common';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { DomainRefusal } from '@lib/domain';
import type { WriteMeta } from '@lib/eventstore';
import { ACCOUNTS_CLOCK, AccountsClock } from '../../ports';
import { ChallengeBinding, WebauthnChallenges } from '../challenges';
import { PasskeysReadModel, StoredPasskey } from '../passkeys.read-model';
import { RelyingParty, passkeyFailed, verifyAssertion } from '../webauthn';
import { PasskeyWrites } from './passkey-writes';

/**
 * A passkey assertion checked (sign-in and step-up; decision 0037): the browser's challenge
 * taken (none, already used or older than five minutes → 400 passkey_failed), the credential
 * found on an account (else 400 passkey_unknown; at step-up, another person's too), the
 * signature verified with user verification and the counter grown (else 400 passkey_failed),
 * and the new counter recorded (PasskeyUsed; the decider checks it again against the stream).
 */
@Injectable()
export class AssertionCheck {
  constructor(
    private readonly challenges: WebauthnChallenges,
    private readonly read: PasskeysReadModel,
    private readonly writes: PasskeyWrites,
    @Inject(ACCOUNTS_CLOCK) private readonly clock: AccountsClock,
  ) {}

  async verify(binding: ChallengeBinding, response: AuthenticationResponseJSON, rp: RelyingParty, meta: WriteMeta, accountId: string | null): Promise<StoredPasskey> {
    const taken = await this.challenges.take(binding);
    if (taken === null) throw passkeyFailed('No passkey request is waiting for this answer (used, or older than five minutes): ask for new options.');
    const passkey = await this.read.byCredential(response.id);
    if (passkey === null || (accountId !== null && passkey.accountId !== accountId)) {
      throw new DomainRefusal('passkey_unknown', accountId === null ? 'This passkey is not on any account.' : 'This passkey is not one of this account’s.');
    }
    const info = await verifyAssertion(rp, response, taken.challenge, passkey);
    await this.writes.run(passkey.accountId, { type: 'UsePasskey', passkeyId: passkey.id, counter: info.newCounter, at: this.clock().toISOString() }, meta);
    return passkey;
  }
}
