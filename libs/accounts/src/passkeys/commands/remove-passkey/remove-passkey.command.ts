import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { PasskeyView } from '../../passkeys.read-model';

/** DELETE /me/passkeys/{id}: answers the passkey as it was. */
export class RemovePasskeyCommand extends Command<PasskeyView> {
  constructor(
    readonly accountId: string,
    readonly passkeyId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
