import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { CommandRunner, EVENT_STORE, EventStore, metadataFor } from '@lib/eventstore';
import { businessDecider } from '../../business.decider';
import { DomainError } from '../../domain-error';
import { BUSINESS_STREAM, isKeyId } from '../../stream-categories';
import { ApiKeyView, BusinessRows, apiKeyView } from '../../views';
import { API_KEY_CACHE, ApiKeyCache } from '../api-key-cache';
import { decideContext } from '../decide-context';
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
    private readonly runner: CommandRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
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
    const result = await this.runner.run(
      businessDecider,
      BUSINESS_STREAM.stream(owner.business_id),
      { type: 'RevokeApiKey', businessId: owner.business_id, keyId },
      { context: decideContext(), metadata: metadataFor(meta) },
    );
    this.keys.keyRevoked(owner.secret_hash);
    return apiKeyView(BusinessRows.of(await this.store.readStream(result.stream)).keys.get(keyId)!);
  }
}
