import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { mintApiKey } from '../../api-keys';
import { businessDecider } from '../../business.decider';
import { ApiKeyWrites, assertKeyId } from '../api-key-writes';
import { BusinessWrites } from '../business-writes';
import { CreatedKey } from '../create-api-key/create-api-key.command';
import { RollApiKeyCommand } from './roll-api-key.command';

/**
 * Mints a new key of the same kind and mode (only its hash reaches the decider and the log),
 * decides the roll on the business's stream (404 not_found for a key not of this business, 409
 * api_key_revoked) and tells this process's authentication cache: the old secret is refused at
 * once here, in other processes once their cache entry expires (BusinessService's cacheTtlMs).
 */
@CommandHandler(RollApiKeyCommand)
export class RollApiKeyHandler implements ICommandHandler<RollApiKeyCommand, CreatedKey> {
  constructor(private readonly writes: BusinessWrites, private readonly keys: ApiKeyWrites) {}

  async execute({ businessId, keyId, meta }: RollApiKeyCommand): Promise<CreatedKey> {
    assertKeyId(keyId);
    const before = await this.keys.row(businessId, keyId);
    const minted = mintApiKey(before.kind, before.mode);
    await this.writes.run(businessDecider, businessId, { type: 'RollApiKey' as const, businessId, keyId, secretHash: minted.secret_hash, last4: minted.last4 }, meta);
    this.keys.cache.keyRevoked(before.secret_hash);
    this.keys.cache.keyCreated(minted.secret_hash);
    const key = await this.keys.row(businessId, keyId);
    return { key: await this.keys.view(key), secret: minted.secret }; // the key id's last use: its old secret's, until the new one is used
  }
}
