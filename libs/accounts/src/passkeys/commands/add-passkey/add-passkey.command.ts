import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { AddPasskeyRequest } from '../../passkey-input';
import type { PasskeyView } from '../../passkeys.read-model';
import type { RelyingParty } from '../../webauthn';

/** POST /me/passkeys: the browser's answer to the registration options verified, the passkey kept. */
export class AddPasskeyCommand extends Command<PasskeyView> {
  constructor(
    readonly accountId: string,
    readonly sessionId: string,
    readonly input: AddPasskeyRequest,
    readonly rp: RelyingParty,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
