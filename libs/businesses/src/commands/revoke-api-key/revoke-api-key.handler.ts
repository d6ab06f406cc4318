import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { businessDecider } from '../../business.decider';
import { ApiKeyView } from '../../views';
import { ApiKeyWrites, assertKeyId, noApiKey } from '../api-key-writes';
import { BusinessWrites } from '../business-writes';
import { RevokeApiKeyCommand } from './revoke-api-key.command';

/**
 * Finds the key's business (api_keys), decides the revocation on its stream and appends it
 * (CommandRunner). 404 not_found for an unknown key (or another business's), 409 api_key_revoked
 * when it already is. Authentication with it fails at once in this process (the cache is told),
 * and in others once their cache entry expires.
 */
@CommandHandler(RevokeApiKeyCommand)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKeyCommand> {
  constructor(private readonly writes: BusinessWrites, private readonly keys: ApiKeyWrites) {}

  async execute({ keyId, businessId, meta }: RevokeApiKeyCommand): Promise<ApiKeyView> {
    assertKeyId(keyId);
    const owner = await this.keys.owner(keyId);
    if (!owner || (businessId !== undefined && owner.business_id !== businessId)) throw noApiKey(keyId);
    await this.writes.run(businessDecider, owner.business_id, { type: 'RevokeApiKey', businessId: owner.business_id, keyId }, meta);
    this.keys.cache.keyRevoked(owner.secret_hash);
    return this.keys.view(await this.keys.row(owner.business_id, keyId));
  }
}
