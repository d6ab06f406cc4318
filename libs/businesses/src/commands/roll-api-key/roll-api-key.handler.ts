import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { keyLastUsedAt } from '../../api-key-use';
import { mintApiKey } from '../../api-keys';
import { businessDecider } from '../../business.decider';
import { DomainError } from '../../domain-error';
import { isKeyId } from '../../stream-categories';
import { apiKeyView } from '../../views';
import { API_KEY_CACHE, ApiKeyCache } from '../api-key-cache';
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
  constructor(
    private readonly writes: BusinessWrites,
    @Inject(API_KEY_CACHE) private readonly keys: ApiKeyCache,
    @Inject(DATABASE) private readonly db: Sql,
  ) {}

  async execute({ businessId, keyId, meta }: RollApiKeyCommand): Promise<CreatedKey> {
    if (!isKeyId(keyId)) throw new DomainError('not_found', `No API key ${keyId}.`);
    const before = (await this.writes.rows(businessId)).keys.get(keyId);
    if (!before) throw new DomainError('not_found', `No API key ${keyId}.`);
    const minted = mintApiKey(before.kind, before.mode);
    await this.writes.run(businessDecider, businessId, { type: 'RollApiKey' as const, businessId, keyId, secretHash: minted.secret_hash, last4: minted.last4 }, meta);
    this.keys.keyRevoked(before.secret_hash);
    this.keys.keyCreated(minted.secret_hash);
    const key = (await this.writes.rows(businessId)).keys.get(keyId)!;
    return { key: apiKeyView({ ...key, last_used_at: await keyLastUsedAt(this.db, keyId) }), secret: minted.secret }; // the key id's last use: its old secret's, until the new one is used
  }
}
