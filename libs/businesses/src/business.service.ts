import { type Database, type Prefixed, unprefixed } from '@lib/database';
import { CommandRunner, EventStore, ReadModelWaiter, WriteMeta } from '@lib/eventstore';
import { Logger } from '@nestjs/common';
import { DomainError } from './domain-error';
import { KeyKind, KeyMode, hashKey, isWellFormedKey } from './api-keys';
import { ApiKeyUse } from './api-key-use';
import { ApiKeyCache } from './commands/api-key-cache';
import { ApiKeyWrites } from './commands/api-key-writes';
import { BusinessWrites } from './commands/business-writes';
import { CreateApiKeyCommand, CreatedKey } from './commands/create-api-key/create-api-key.command';
import { CreateApiKeyHandler } from './commands/create-api-key/create-api-key.handler';
import { CreateBusinessCommand, CreatedBusiness } from './commands/create-business/create-business.command';
import { CreateBusinessHandler, activeReferrer } from './commands/create-business/create-business.handler';
import { RevokeApiKeyCommand } from './commands/revoke-api-key/revoke-api-key.command';
import { ReinstateBusinessCommand } from './commands/reinstate-business/reinstate-business.command';
import { ReinstateBusinessHandler } from './commands/reinstate-business/reinstate-business.handler';
import { RevokeApiKeyHandler } from './commands/revoke-api-key/revoke-api-key.handler';
import { SuspendBusinessCommand } from './commands/suspend-business/suspend-business.command';
import { SuspendBusinessHandler } from './commands/suspend-business/suspend-business.handler';
import { Permissions } from './permissions';
import { findBusiness } from './queries/get-business/get-business.handler';
import { isBusinessId, isKeyId } from './stream-categories';
import { ApiKeyReadRow, ApiKeyRow, ApiKeyView, Business, BusinessRow, apiKeyView, businessView, compareKeyRows } from './views';

export interface BusinessServiceOptions {
  /** How long an authentication result is reused in this process (default 2000 ms). */
  cacheTtlMs?: number;
  /** Most keys remembered (default 10,000); the oldest entries go first. */
  cacheMaxEntries?: number;
  /** Longest wait for the read models after a write (default 5000 ms). */
  projectionTimeoutMs?: number;
  /** Milliseconds since the epoch (default Date.now): the cache's expiry, when a key was last used. */
  clock?: () => number;
  /**
   * What the composition root does once a business exists, before createBusiness answers (a
   * simulated business gets a wallet created in the service: libs/wiring onboarding.ts).
   */
  afterCreate?: (created: CreatedBusiness, meta: WriteMeta) => Promise<void>;
}

/** Who and what a write comes from; stored in each event's metadata. */
export type { WriteMeta } from '@lib/eventstore';

export interface CreateBusinessInput extends WriteMeta {
  name: string;
  simulated: boolean;
  website?: string | null;
  support_email?: string | null;
  /** Another business's referral code: it becomes the referrer (decision 0035). */
  referral_code?: string | null;
}

export interface CreateKeyInput extends WriteMeta {
  businessId: string;
  kind: KeyKind;
  mode: KeyMode;
  /** Restricted keys only: grants, or their written form `payments:write,webhooks:read`. */
  permissions?: Permissions | string | null;
  name?: string | null;
}

export interface RevokeKeyOptions extends WriteMeta {
  /** When given, a key of another business is not found (what the API answers a business). */
  businessId?: string;
}

export interface SuspendBusinessInput extends WriteMeta {
  /** Why, for the record (1–500 characters after trimming). */
  reason: string;
}

export interface AuthenticatedKey {
  key: ApiKeyView;
  business: Business;
}

/** A revoked key stays refused in this process at least this long, whatever the projection does. */
const REVOKED_MEMORY_MS = 10 * 60_000;

const KEY_COLUMNS = `k.id, k.business_id, k.kind, k.mode, k.prefix, k.last4, k.name, k.permissions, k.created_at, k.revoked_at`;

/** A key's columns and when it was last used: `FROM api_keys k ${WITH_USE}`. */
const WITH_USE = `LEFT JOIN api_key_activity a ON a.key_id = k.id`;

/** The authentication lookup: one statement, by hash, live keys only, with the business. */
const AUTHENTICATE_SQL = `SELECT ${KEY_COLUMNS},
    b.name AS business_name, b.simulated AS business_simulated, b.status AS business_status, b.website AS business_website,
    b.support_email AS business_support_email, b.created_at AS business_created_at, b.updated_at AS business_updated_at,
    b.suspended_at AS business_suspended_at, b.email_alerts AS business_email_alerts, b.product_updates AS business_product_updates,
    b.alert_email AS business_alert_email, b.pending_alert_email AS business_pending_alert_email, b.referral_code AS business_referral_code,
    b.referred_by AS business_referred_by
  FROM api_keys k JOIN businesses b ON b.id = k.business_id
  WHERE k.secret_hash = $1 AND k.revoked_at IS NULL`;

type KeyRow = Omit<ApiKeyRow, 'secret_hash'>;
type AuthRow = KeyRow & Prefixed<Omit<BusinessRow, 'id'>, 'business_'>;

interface CacheEntry {
  value: AuthenticatedKey | null;
  expiresAt: number;
}

/**
 * Authentication (not a use case): the live key a key string names, with its business, through a
 * short in-process cache that this process's key commands keep honest (ApiKeyCache); and the key
 * reads the operator needs. The operator's writes (CLI, admin endpoint) go through the same
 * use-case handlers as the command bus (libs/businesses/src/commands): createBusiness, createKey,
 * revokeKey, suspendBusiness and reinstateBusiness only build the command and run its handler.
 */
export class BusinessService implements ApiKeyCache {
  private readonly cache = new Map<string, CacheEntry>();
  /** When each key was last used: noted by authenticate, written off the request path (decision 0039). */
  readonly keyUse: ApiKeyUse;
  /** Bumped by every local revocation: a lookup that started before one is not cached. */
  private generation = 0;
  private readonly cacheTtlMs: number;
  private readonly cacheMaxEntries: number;
  private readonly clock: () => number;
  private readonly afterCreate: ((created: CreatedBusiness, meta: WriteMeta) => Promise<void>) | null;
  private readonly writes: BusinessWrites;
  private readonly handlers: {
    createBusiness: CreateBusinessHandler;
    createKey: CreateApiKeyHandler;
    revokeKey: RevokeApiKeyHandler;
    suspend: SuspendBusinessHandler;
    reinstate: ReinstateBusinessHandler;
  };

  constructor(
    store: EventStore,
    private readonly db: Database,
    projections: ReadModelWaiter,
    options: BusinessServiceOptions = {},
  ) {
    this.cacheTtlMs = options.cacheTtlMs ?? 2000;
    this.cacheMaxEntries = options.cacheMaxEntries ?? 10_000;
    this.clock = options.clock ?? Date.now;
    this.afterCreate = options.afterCreate ?? null;
    const logger = new Logger('businesses');
    this.keyUse = new ApiKeyUse(db, { clock: this.clock, onError: (error) => logger.warn(`recording an API key's use: ${error instanceof Error ? error.message : String(error)}`) });
    const runner = new CommandRunner(store, projections, { readYourWritesTimeoutMs: options.projectionTimeoutMs ?? 5000 });
    const writes = new BusinessWrites(runner, store);
    this.writes = writes;
    const keys = new ApiKeyWrites(writes, db, this);
    this.handlers = {
      createBusiness: new CreateBusinessHandler(writes),
      createKey: new CreateApiKeyHandler(writes, keys),
      revokeKey: new RevokeApiKeyHandler(writes, keys),
      suspend: new SuspendBusinessHandler(writes, this),
      reinstate: new ReinstateBusinessHandler(writes, this),
    };
  }

  /** CreateBusinessCommand: a business with one secret and one publishable key (test keys for a simulated business). */
  async createBusiness({ actor, requestId, correlationId, causationId, idempotencySeed, ...input }: CreateBusinessInput): Promise<CreatedBusiness> {
    const meta = { actor, requestId, correlationId, causationId, idempotencySeed };
    const created = await this.handlers.createBusiness.execute(new CreateBusinessCommand(input, meta));
    await this.afterCreate?.(created, meta);
    return created;
  }

  /**
   * A referral code as a sign-up may give it (decision 0035): folded to lower case, or null when no
   * business holds it or its holder is suspended (activeReferrer, as createBusiness reads it), so a
   * sign-up can refuse it before anything is sent or recorded.
   */
  async referralCode(given: string): Promise<string | null> {
    return (await activeReferrer(this.writes, given))?.code ?? null;
  }

  /** CreateApiKeyCommand: the whole key is in the answer and nowhere else. */
  createKey({ actor, requestId, correlationId, causationId, idempotencySeed, businessId, kind, ...input }: CreateKeyInput): Promise<CreatedKey> {
    return this.handlers.createKey.execute(new CreateApiKeyCommand(businessId, { type: kind, ...input }, { actor, requestId, correlationId, causationId, idempotencySeed }));
  }

  /** A business's keys, revoked ones included, oldest first; [] for an unknown business. */
  async listKeys(businessId: string): Promise<ApiKeyView[]> {
    const { rows } = await this.db.query<ApiKeyReadRow>(`SELECT ${KEY_COLUMNS}, a.last_used_at FROM api_keys k ${WITH_USE} WHERE k.business_id = $1`, [businessId], 'businesses_list_keys');
    return rows.sort(compareKeyRows).map(apiKeyView);
  }

  /**
   * The operator's `keys list` (CLI, admin endpoint): listKeys, but 404 not_found for an id that
   * names no business (its stream is empty), as `keys create` and `businesses suspend` answer
   * (ops audit F2): a mistyped id is not "a business with no keys".
   */
  async listKeysOfBusiness(businessId: string): Promise<ApiKeyView[]> {
    if (!isBusinessId(businessId) || (await this.writes.readStream(businessId)).length === 0) throw new DomainError('not_found', `No business ${businessId}.`);
    return this.listKeys(businessId);
  }

  async getKey(keyId: string): Promise<ApiKeyView | null> {
    if (!isKeyId(keyId)) return null;
    const { rows } = await this.db.query<ApiKeyReadRow>(`SELECT ${KEY_COLUMNS}, a.last_used_at FROM api_keys k ${WITH_USE} WHERE k.id = $1`, [keyId], 'businesses_get_key');
    return rows[0] ? apiKeyView(rows[0]) : null;
  }

  /**
   * RevokeApiKeyCommand: 404 not_found for an unknown key (or one of another business, when
   * options.businessId is given), 409 api_key_revoked when it already is. Authentication with it
   * fails at once in this process, and in others once their cache entry expires (cacheTtlMs).
   */
  revokeKey(keyId: string, { businessId, ...meta }: RevokeKeyOptions = {}): Promise<ApiKeyView> {
    return this.handlers.revokeKey.execute(new RevokeApiKeyCommand(keyId, businessId, meta));
  }

  /**
   * SuspendBusinessCommand (the operator: pass `actor: operatorActor(name)`): 404 not_found for an
   * unknown business, 403 business_suspended when it already is. Its keys' next requests in this
   * process read the suspended business; other processes' within their cache's cacheTtlMs.
   */
  suspendBusiness(businessId: string, { reason, ...meta }: SuspendBusinessInput): Promise<Business> {
    return this.handlers.suspend.execute(new SuspendBusinessCommand(businessId, { reason }, meta));
  }

  /** ReinstateBusinessCommand: 404 not_found for an unknown business, 400 invalid_request when it is not suspended. */
  reinstateBusiness(businessId: string, meta: WriteMeta = {}): Promise<Business> {
    return this.handlers.reinstate.execute(new ReinstateBusinessCommand(businessId, meta));
  }

  /** The business (the read of GetBusinessQuery), or null. */
  getBusiness(id: string): Promise<Business | null> {
    return findBusiness(this.db, id);
  }

  /**
   * The live key a secret (or publishable) key string names, with its business; null for a
   * malformed, unknown or revoked key. Results are reused for cacheTtlMs (answers are frozen; their
   * key's last_used_at is not read). A key found is noted as used (keyUse: at most one write a minute).
   */
  async authenticate(secret: string): Promise<AuthenticatedKey | null> {
    const found = await this.lookUp(secret);
    if (found) this.keyUse.note(found.key.id);
    return found;
  }

  private async lookUp(secret: string): Promise<AuthenticatedKey | null> {
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

  /** A new key: a lookup of its hash cached before it existed is dropped. */
  keyCreated(secretHash: string): void {
    this.cache.delete(secretHash);
  }

  /** A key whose grants or name changed here: its cached lookup is dropped, nor one under way cached. */
  keyChanged(secretHash: string): void {
    this.generation++;
    this.cache.delete(secretHash);
  }

  /** A key revoked here: refused at once, and a lookup already under way is not cached. */
  keyRevoked(secretHash: string): void {
    this.generation++;
    this.remember(secretHash, null, this.clock() + REVOKED_MEMORY_MS);
  }

  /** A business suspended or reinstated here: no cached lookup of its keys is used again, nor one under way cached. */
  businessChanged(businessId: string): void {
    this.generation++;
    for (const [hash, entry] of this.cache) if (entry.value?.business.id === businessId) this.cache.delete(hash);
  }

  private remember(hash: string, value: AuthenticatedKey | null, expiresAt: number): void {
    this.cache.delete(hash); // re-inserted last: the Map's order is the eviction order
    this.cache.set(hash, { value, expiresAt });
    while (this.cache.size > this.cacheMaxEntries) this.cache.delete(this.cache.keys().next().value!);
  }
}

/** The business's columns of an authentication row (`business_name` …), under their own names. */
function businessOf(row: AuthRow): BusinessRow {
  return unprefixed(row, 'business_');
}

function freezeAuth(value: AuthenticatedKey): AuthenticatedKey {
  if (value.key.permissions) Object.freeze(value.key.permissions);
  Object.freeze(value.key);
  Object.freeze(value.business);
  return Object.freeze(value);
}
