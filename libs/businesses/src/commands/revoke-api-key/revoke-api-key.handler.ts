import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { businessDecider } from '../../business.decider';
import { DomainError } from '../../domain-error';
import { isKeyId } from '../../stream-categories';
import { keyLastUsedAt } from '../../api-key-use';
import { ApiKeyView, apiKeyView } from '../../views';
import { API_KEY_CACHE, ApiKeyCache } from '../api-key-cache';
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
  constructor(
    private readonly writes: BusinessWrites,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(API_KEY_CACHE) private readonly keys: ApiKeyCache,
  ) {}

  async execute({ keyId, businessId, meta }: RevokeApiKeyCommand): Promise<ApiKeyView> {
    if (!isKeyId(keyId)) throw new DomainError('not_found', `No API key ${keyId}.`);
    const { rows: found } = await this.db.query<{ business_id: string; secret_hash: string }>(
      `SELECT business_id, secret_hash FROM api_keys WHERE id = $1`,
      [keyId],
      'businesses_key_owner',
    );
    const owner = found[0];
    if (!owner || (businessId !== undefined && owner.business_id !== businessId)) throw new DomainError('not_found', `No API key ${keyId}.`);
    await this.writes.run(businessDecider, owner.business_id, { type: 'RevokeApiKey', businessId: owner.business_id, keyId }, meta);
    this.keys.keyRevoked(owner.secret_hash);
    return apiKeyView({ ...(await this.writes.rows(owner.business_id)).keys.get(keyId)!, last_used_at: await keyLastUsedAt(this.db, keyId) });
  }
}
