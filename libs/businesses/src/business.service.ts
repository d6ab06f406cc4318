import { randomUUID } from 'node:crypto';
import type { Database } from '@lib/database';
import { AppendResult, ConcurrencyError, EventStore, ExpectedRevision, LogPosition, NewEvent, RecordedEvent, StreamNotFoundError, WriteMeta, metadataFor } from '@lib/eventstore';
import { newId } from '@lib/http';
import { KeyKind, KeyMode, hashKey, isWellFormedKey, mintApiKey } from './api-keys';
import { BusinessCommand, BusinessState, DecideContext, decide, decideAll, foldBusiness, initialBusinessState } from './business.decider';
import { DomainError } from './domain-error';
import { BusinessEvent, asBusinessEvent } from './events';
import { BUSINESS_STREAM } from './stream-categories';
import { Permissions, parsePermissions } from './permissions';
import { ApiKeyRow, ApiKeyView, Business, BusinessRow, BusinessRows, apiKeyView, businessView, compareKeyRows } from './views';

/** What the service needs of the projections: read-your-writes waits (ProjectionRunner has it). */
export interface ProjectionWaiter {
  waitFor(position: LogPosition, timeoutMs?: number): Promise<boolean>;
}

export interface BusinessServiceOptions {
  /** How long an authentication result is reused in this process (default 2000 ms). */
  cacheTtlMs?: number;
  /** Most keys remembered (default 10,000); the oldest entries go first. */
  cacheMaxEntries?: number;
  /** Longest wait for the projection after a write (default 5000 ms). */
  projectionTimeoutMs?: number;
  /** Milliseconds since the epoch (default Date.now): decisions and the cache's expiry. */
  clock?: () => number;
}

/** Who and what a write comes from; stored in each event's metadata. */
export type { WriteMeta } from '@lib/eventstore';

export interface CreateBusinessInput extends WriteMeta {
  name: string;
  simulated: boolean;
  website?: string | null;
  support_email?: string | null;
}

export interface CreatedBusiness {
  business: Business;
  /** Shown once: only the hash is kept. */
  secret_key: string;
  /** Shown once as well (it is not secret, but it is not stored in clear either). */
  publishable_key: string;
  keys: ApiKeyView[];
}

export interface CreateKeyInput extends WriteMeta {
  businessId: string;
  kind: KeyKind;
  mode: KeyMode;
  /** Restricted keys only: grants, or their written form `payments:write,webhooks:read`. */
  permissions?: Permissions | string | null;
  name?: string | null;
}

export interface CreatedKey {
  key: ApiKeyView;
  /** The whole key, shown once. */
  secret: string;
}

export interface RevokeKeyOptions extends WriteMeta {
  /** When given, a key of another business is not found (what the API answers a business). */
  businessId?: string;
}

export interface AuthenticatedKey {
  key: ApiKeyView;
  business: Business;
}

const BUSINESS_ID = /^biz_[0-9A-Za-z]{1,64}$/;
const KEY_ID = /^key_[0-9A-Za-z]{1,64}$/;
/** A revoked key stays refused in this process at least this long, whatever the projection does. */
const REVOKED_MEMORY_MS = 10 * 60_000;

const KEY_COLUMNS = `k.id, k.business_id, k.kind, k.mode, k.prefix, k.last4, k.name, k.permissions, k.created_at, k.revoked_at`;

/** The authentication lookup: one statement, by hash, live keys only, with the business. */
const AUTHENTICATE_SQL = `SELECT ${KEY_COLUMNS},
    b.name AS business_name, b.simulated AS business_simulated, b.status AS business_status, b.website AS business_website,
    b.support_email AS business_support_email, b.created_at AS business_created_at, b.updated_at AS business_updated_at
  FROM api_keys k JOIN businesses b ON b.id = k.business_id
  WHERE k.secret_hash = $1 AND k.revoked_at IS NULL`;

type KeyRow = Omit<ApiKeyRow, 'secret_hash'>;
type AuthRow = KeyRow & {
  business_name: string;
  business_simulated: boolean;
  business_status: 'active';
  business_website: string | null;
  business_support_email: string | null;
  business_created_at: Date;
  business_updated_at: Date;
};

interface CacheEntry {
  value: AuthenticatedKey | null;
  expiresAt: number;
}

/**
 * Businesses and their API keys: writes go through the business decider into the business's
 * stream; reads come from the `businesses` projection. Every write waits (bounded) for the
 * projection to pass it, so the caller's next read, or authentication with a new key, sees
 * it; the write's own answer is built from the stream it appended to.
 */
export class BusinessService {
  private readonly cache = new Map<string, CacheEntry>();
  /** Bumped by every local revocation: a lookup that started before one is not cached. */
  private generation = 0;
  private readonly cacheTtlMs: number;
  private readonly cacheMaxEntries: number;
  private readonly projectionTimeoutMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly store: EventStore,
    private readonly db: Database,
    private readonly projections: ProjectionWaiter,
    options: BusinessServiceOptions = {},
  ) {
    this.cacheTtlMs = options.cacheTtlMs ?? 2000;
    this.cacheMaxEntries = options.cacheMaxEntries ?? 10_000;
    this.projectionTimeoutMs = options.projectionTimeoutMs ?? 5000;
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Creates a business with one secret and one publishable key, in one append: test keys for
   * a simulated business, live keys otherwise.
   */
  async createBusiness(input: CreateBusinessInput): Promise<CreatedBusiness> {
    const mode: KeyMode = input.simulated === true ? 'test' : 'live';
    const secret = mintApiKey('secret', mode);
    const publishable = mintApiKey('publishable', mode);
    const keyCommand =
      (minted: typeof secret, kind: KeyKind) =>
      (state: BusinessState): BusinessCommand => ({
        type: 'CreateApiKey',
        businessId: state.status === 'active' ? state.id : '',
        kind,
        mode,
        secretHash: minted.secret_hash,
        last4: minted.last4,
      });
    const { events, state } = decideAll(
      [
        { type: 'CreateBusiness', name: input.name, simulated: input.simulated, website: input.website, supportEmail: input.support_email },
        keyCommand(secret, 'secret'),
        keyCommand(publishable, 'publishable'),
      ],
      initialBusinessState,
      this.context(),
    );
    if (state.status !== 'active') throw new Error('CreateBusiness decided no business');
    const stream = BUSINESS_STREAM.stream(state.id);
    const appended = await this.append(stream, events, 'no_stream', input);
    await this.projections.waitFor(appended.position, this.projectionTimeoutMs);
    const rows = BusinessRows.of(await this.store.readStream(stream));
    return {
      business: businessView(rows.businesses.get(state.id)!),
      secret_key: secret.secret,
      publishable_key: publishable.secret,
      keys: sortedKeys(rows),
    };
  }

  /** Creates a key; the whole key is in the answer and nowhere else. */
  async createKey(input: CreateKeyInput): Promise<CreatedKey> {
    const permissions = typeof input.permissions === 'string' ? parsePermissions(input.permissions) : input.permissions;
    const minted = mintApiKey(input.kind, input.mode);
    const rows = await this.change(
      input.businessId,
      () => ({
        type: 'CreateApiKey',
        businessId: input.businessId,
        kind: input.kind,
        mode: input.mode,
        name: input.name,
        permissions,
        secretHash: minted.secret_hash,
        last4: minted.last4,
      }),
      input,
    );
    const key = [...rows.keys.values()].find((k) => k.secret_hash === minted.secret_hash)!;
    this.cache.delete(minted.secret_hash);
    return { key: apiKeyView(key), secret: minted.secret };
  }

  /** A business's keys, revoked ones included, oldest first; [] for an unknown business. */
  async listKeys(businessId: string): Promise<ApiKeyView[]> {
    const { rows } = await this.db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.business_id = $1`, [businessId], 'businesses_list_keys');
    return rows.sort(compareKeyRows).map(apiKeyView);
  }

  async getKey(keyId: string): Promise<ApiKeyView | null> {
    if (!KEY_ID.test(keyId)) return null;
    const { rows } = await this.db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.id = $1`, [keyId], 'businesses_get_key');
    return rows[0] ? apiKeyView(rows[0]) : null;
  }

  /**
   * Revokes a key (found through the api_keys table): 404 not_found for an unknown key (or
   * one of another business, when options.businessId is given), 409 api_key_revoked when it
   * already is. Authentication with it fails at once in this process, and in others once
   * their cache entry expires (cacheTtlMs).
   */
  async revokeKey(keyId: string, options: RevokeKeyOptions = {}): Promise<ApiKeyView> {
    if (!KEY_ID.test(keyId)) throw new DomainError('not_found', `No API key ${keyId}.`);
    const { rows: found } = await this.db.query<{ business_id: string; secret_hash: string }>(
      `SELECT business_id, secret_hash FROM api_keys WHERE id = $1`,
      [keyId],
      'businesses_key_owner',
    );
    const owner = found[0];
    if (!owner || (options.businessId !== undefined && owner.business_id !== options.businessId)) {
      throw new DomainError('not_found', `No API key ${keyId}.`);
    }
    const rows = await this.change(owner.business_id, () => ({ type: 'RevokeApiKey', businessId: owner.business_id, keyId }), options);
    this.generation++;
    this.remember(owner.secret_hash, null, this.clock() + REVOKED_MEMORY_MS);
    return apiKeyView(rows.keys.get(keyId)!);
  }

  async getBusiness(id: string): Promise<Business | null> {
    const { rows } = await this.db.query<BusinessRow>(
      `SELECT id, name, simulated, status, website, support_email, created_at, updated_at FROM businesses WHERE id = $1`,
      [id],
      'businesses_get',
    );
    return rows[0] ? businessView(rows[0]) : null;
  }

  /**
   * The live key a secret (or publishable) key string names, with its business; null for a
   * malformed, unknown or revoked key. Results are reused for cacheTtlMs (answers are frozen).
   */
  async authenticate(secret: string): Promise<AuthenticatedKey | null> {
    if (typeof secret !== 'string' || !isWellFormedKey(secret)) return null;
    const hash = hashKey(secret);
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > this.clock()) return cached.value;
    const generation = this.generation;
    const { rows } = await this.db.query<AuthRow>(AUTHENTICATE_SQL, [hash], 'businesses_authenticate');
    const row = rows[0];
    const value = row ? freezeAuth({ key: apiKeyView(row), business: businessView(businessOf(row)) }) : null;
    if (generation === this.generation) this.remember(hash, value, this.clock() + this.cacheTtlMs);
    return value;
  }

  /** Reads the stream, decides, appends at the revision read; re-reads and decides again once on a conflict. */
  private async change(businessId: string, command: (state: BusinessState) => BusinessCommand, meta: WriteMeta): Promise<BusinessRows> {
    if (!BUSINESS_ID.test(businessId)) throw new DomainError('not_found', `No business ${businessId}.`);
    const stream = BUSINESS_STREAM.stream(businessId);
    for (let attempt = 1; ; attempt++) {
      const recorded = await this.read(stream, businessId);
      const state = foldBusiness(known(recorded));
      const events = decide(command(state), state, this.context());
      let appended: AppendResult;
      try {
        appended = await this.append(stream, events, recorded[recorded.length - 1].revision, meta);
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt === 1) continue;
        throw error;
      }
      await this.projections.waitFor(appended.position, this.projectionTimeoutMs);
      return BusinessRows.of(await this.store.readStream(stream));
    }
  }

  private async read(stream: string, businessId: string): Promise<RecordedEvent[]> {
    try {
      return await this.store.readStream(stream);
    } catch (error) {
      if (error instanceof StreamNotFoundError) throw new DomainError('not_found', `No business ${businessId}.`);
      throw error;
    }
  }

  private append(stream: string, events: BusinessEvent[], expected: ExpectedRevision, meta: WriteMeta) {
    const metadata = metadataFor(meta);
    const batch: NewEvent[] = events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data, metadata }));
    return this.store.append(stream, batch, expected);
  }

  private context(): DecideContext {
    return { now: new Date(this.clock()), ids: { business: () => newId('biz'), key: () => newId('key') } };
  }

  private remember(hash: string, value: AuthenticatedKey | null, expiresAt: number): void {
    this.cache.delete(hash); // re-inserted last: the Map's order is the eviction order
    this.cache.set(hash, { value, expiresAt });
    while (this.cache.size > this.cacheMaxEntries) this.cache.delete(this.cache.keys().next().value!);
  }
}

function known(events: RecordedEvent[]): BusinessEvent[] {
  return events.map(asBusinessEvent).filter((e): e is BusinessEvent => e !== null);
}

function sortedKeys(rows: BusinessRows): ApiKeyView[] {
  return [...rows.keys.values()].sort(compareKeyRows).map(apiKeyView);
}

function businessOf(row: AuthRow): BusinessRow {
  return {
    id: row.business_id,
    name: row.business_name,
    simulated: row.business_simulated,
    status: row.business_status,
    website: row.business_website,
    support_email: row.business_support_email,
    created_at: row.business_created_at,
    updated_at: row.business_updated_at,
  };
}

function freezeAuth(value: AuthenticatedKey): AuthenticatedKey {
  if (value.key.permissions) Object.freeze(value.key.permissions);
  Object.freeze(value.key);
  Object.freeze(value.business);
  return Object.freeze(value);
}
