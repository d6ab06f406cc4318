import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { keyLastUsedAt } from '../api-key-use';
import { DomainError } from '../domain-error';
import { isKeyId } from '../stream-categories';
import { ApiKeyRow, ApiKeyView, apiKeyView } from '../views';
import { API_KEY_CACHE, ApiKeyCache } from './api-key-cache';
import { BusinessWrites } from './business-writes';

/** 404 not_found: the id names no key (or none of the caller's business). */
export const noApiKey = (keyId: string): DomainError => new DomainError('not_found', `No API key ${keyId}.`);

/** 404 not_found for anything but a key id, before anything is read. */
export function assertKeyId(keyId: string): void {
  if (!isKeyId(keyId)) throw noApiKey(keyId);
}

/**
 * What the API-key use cases share (create, roll, update, revoke; decision 0039): the key as the
 * business's stream now leaves it, their answer (that key with its recorded last use), the key a
 * revocation by id names, and the process's authentication cache they tell (`cache`).
 */
@Injectable()
export class ApiKeyWrites {
  constructor(
    private readonly writes: BusinessWrites,
    @Inject(DATABASE) private readonly db: Sql,
    @Inject(API_KEY_CACHE) readonly cache: ApiKeyCache,
  ) {}

  /** The key as the business's stream now leaves it; 404 not_found when the stream has none. */
  async row(businessId: string, keyId: string): Promise<ApiKeyRow> {
    const key = (await this.writes.rows(businessId)).keys.get(keyId);
    if (!key) throw noApiKey(keyId);
    return key;
  }

  /** A write's answer: the key with its recorded last use (decision 0039). */
  async view(key: ApiKeyRow): Promise<ApiKeyView> {
    return apiKeyView({ ...key, last_used_at: await keyLastUsedAt(this.db, key.id) });
  }

  /** The business and secret hash of a key (api_keys), whatever business asks; null for none. */
  async owner(keyId: string): Promise<{ business_id: string; secret_hash: string } | null> {
    const { rows } = await this.db.query<{ business_id: string; secret_hash: string }>(
      `SELECT business_id, secret_hash FROM api_keys WHERE id = $1`,
      [keyId],
      'businesses_key_owner',
    );
    return rows[0] ?? null;
  }
}
