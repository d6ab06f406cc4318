import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { PasskeyWrites } from '../../app/passkey-writes';
import { PasskeyView, PasskeysReadModel } from '../../passkeys.read-model';
import { RemovePasskeyCommand } from './remove-passkey.command';

/** Removes one of the person's passkeys (decision 0037): another's or unknown → 404; the last way to sign in → 409 last_sign_in_method. */
@CommandHandler(RemovePasskeyCommand)
export class RemovePasskeyHandler implements ICommandHandler<RemovePasskeyCommand, PasskeyView> {
  constructor(
    private readonly writes: PasskeyWrites,
    private readonly read: PasskeysReadModel,
  ) {}

  async execute({ accountId, passkeyId, meta }: RemovePasskeyCommand): Promise<PasskeyView> {
    const passkey = await this.read.one(accountId, passkeyId);
    if (passkey === null) throw new DomainRefusal('not_found', 'No passkey with this id.');
    await this.writes.run(accountId, { type: 'RemovePasskey', passkeyId }, meta);
    return passkey;
  }
}
