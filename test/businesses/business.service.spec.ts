import { createHash, randomUUID } from 'node:crypto';
import {
  BusinessService,
  DomainError,
  KEY_LENGTH,
  BUSINESS_STREAM,
  businessesProjector,
  keyAllows,
  toApiError,
} from '@lib/businesses';
import { Database, Row } from '@lib/database';
import { ConcurrencyError, EventStore } from '@lib/eventstore';
import { ProjectionRunner, rebuildProjection, verifyProjection } from '@lib/projections';
import { STORE_KINDS, TestStore, openTestStore } from '../support/fixtures';

/** A database that counts the statements sent through it (to see the cache at work). */
function counting(db: Database): { db: Database; statements: { text: string; name?: string }[] } {
  const statements: { text: string; name?: string }[] = [];
  const wrapped: Database = {
    kind: db.kind,
    query: <R extends object = Row>(text: string, params?: unknown[], name?: string) => {
      statements.push({ text, name });
      return db.query<R>(text, params, name);
    },
    exec: (script) => db.exec(script),
    transaction: (fn, isolation) => db.transaction(fn, isolation),
    close: () => db.close(),
  };
  return { db: wrapped, statements };
}

async function refused(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe.each(STORE_KINDS)('businesses and keys on %s', (kind) => {
  let opened: TestStore;
  let store: EventStore;
  let db: Database;
  let runner: ProjectionRunner;
  let service: BusinessService;

  beforeAll(async () => {
    opened = await openTestStore(kind, 'biz', { pollIntervalMs: 20 });
    ({ store, db } = opened);
    runner = new ProjectionRunner(store, db, [businessesProjector]);
    await runner.start();
    service = new BusinessService(store, db, runner);
  });
  afterAll(async () => {
    await runner?.stop();
    await opened?.cleanup();
  });

  it('creates a live business with a secret and a publishable key in one append, and authenticates with them at once', async () => {
    const created = await service.createBusiness({ name: 'Acme Coffee', simulated: false, actor: { kind: 'person', id: 'usr_1', name: 'Ada' }, requestId: 'req_1' });
    const { business } = created;
    expect(business).toEqual({
      kind: 'business',
      id: expect.stringMatching(/^biz_[0-9A-Za-z]{24}$/),
      name: 'Acme Coffee',
      website: null,
      support_email: null,
      alert_email: null,
      pending_alert_email: null,
      status: 'active',
      suspended_at: null,
      email_alerts: false,
      product_updates: false,
      simulated: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: business.created_at,
    });
    expect(created.secret_key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(created.publishable_key).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
    expect([created.secret_key.length, created.publishable_key.length]).toEqual([KEY_LENGTH, KEY_LENGTH]);
    expect(created.keys.map((k) => [k.type, k.mode, k.redacted_key])).toEqual([
      ['secret', 'live', `sk_live_…${created.secret_key.slice(-4)}`],
      ['publishable', 'live', `pk_live_…${created.publishable_key.slice(-4)}`],
    ]);

    // read your writes: no waiting by the caller
    const bySecret = await service.authenticate(created.secret_key);
    expect(bySecret).toEqual({ key: created.keys[0], business });
    const byPublishable = await service.authenticate(created.publishable_key);
    expect(byPublishable?.key).toMatchObject({ kind: 'api_key', type: 'publishable', business_id: business.id, permissions: null });
    expect(byPublishable?.business.id).toBe(business.id);
    expect(await service.getBusiness(business.id)).toEqual(business);
    expect(await service.listKeys(business.id)).toEqual(created.keys);

    // the stream: three events of one append, hashes only, metadata from the request
    const events = await store.readStream(BUSINESS_STREAM.stream(business.id));
    expect(events.map((e) => e.type)).toEqual(['BusinessCreated', 'ApiKeyCreated', 'ApiKeyCreated']);
    expect(new Set(events.map((e) => e.position.commit)).size).toBe(1);
    // neither the events nor any table holds a key in clear
    const tables = await Promise.all(
      ['es_events', 'businesses', 'api_keys'].map(async (t) => (await db.query<{ row: string }>(`SELECT t::text AS row FROM ${t} t`)).rows.map((r) => r.row).join('\n')),
    );
    const stored = JSON.stringify(events.map((e) => [e.data, e.metadata])) + tables.join('\n');
    expect(tables[0]).toContain(business.id);
    expect(stored).not.toContain(created.secret_key);
    expect(stored).not.toContain(created.publishable_key);
    expect(stored).not.toContain(created.secret_key.slice(8));
    expect(events[1].data).toMatchObject({
      key_id: created.keys[0].id,
      business_id: business.id,
      kind: 'secret',
      mode: 'live',
      secret_hash: createHash('sha256').update(created.secret_key).digest('hex'),
      prefix: 'sk_live_',
      last4: created.secret_key.slice(-4),
      name: null,
      permissions: null,
    });
    expect(events[0].metadata).toEqual({ correlationId: 'req_1', causationId: 'req_1', requestId: 'req_1', actor: { kind: 'person', id: 'usr_1', name: 'Ada' } });
  });

  it('gives a simulated business test keys', async () => {
    const created = await service.createBusiness({ name: 'Sandbox', simulated: true, website: 'https://sandbox.test', support_email: 'help@sandbox.test' });
    expect(created.business).toMatchObject({ simulated: true, website: 'https://sandbox.test', support_email: 'help@sandbox.test' });
    expect(created.secret_key).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(created.publishable_key).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
    expect((await service.authenticate(created.secret_key))?.business.simulated).toBe(true);
    expect(await refused(service.createKey({ businessId: created.business.id, kind: 'secret', mode: 'live' }))).toMatchObject({ code: 'invalid_request', field: 'mode' });
  });

  it('refuses unknown, malformed and wrong-prefix keys', async () => {
    const { secret_key } = await service.createBusiness({ name: 'Shape', simulated: false });
    expect(await service.authenticate('sk_live_' + '0'.repeat(32))).toBeNull();
    expect(await service.authenticate('')).toBeNull();
    expect(await service.authenticate(secret_key + 'x')).toBeNull();
    expect(await service.authenticate(secret_key.replace('sk_live_', 'rk_live_'))).toBeNull();
    expect(await service.authenticate(secret_key.toLowerCase() === secret_key ? secret_key.toUpperCase() : secret_key.toLowerCase())).toBeNull();
  });

  it('round-trips a restricted key and its permissions', async () => {
    const { business } = await service.createBusiness({ name: 'Restricted', simulated: false });
    const { key, secret } = await service.createKey({ businessId: business.id, kind: 'restricted', mode: 'live', permissions: 'webhooks:read,payments:write', name: 'CI' });
    expect(secret).toMatch(/^rk_live_[0-9A-Za-z]{32}$/);
    expect(key).toEqual({
      kind: 'api_key',
      id: expect.stringMatching(/^key_[0-9A-Za-z]{24}$/),
      business_id: business.id,
      type: 'restricted',
      mode: 'live',
      name: 'CI',
      permissions: { payments: 'write', webhooks: 'read' },
      redacted_key: `rk_live_…${secret.slice(-4)}`,
      created_at: expect.any(String),
      revoked_at: null,
    });
    const found = await service.authenticate(secret);
    expect(found?.key).toEqual(key);
    expect(keyAllows(found!.key, 'payments', 'read')).toBe(true);
    expect(keyAllows(found!.key, 'webhooks', 'write')).toBe(false);
    expect(keyAllows(found!.key, 'wallet', 'read')).toBe(false);
    expect((await service.listKeys(business.id)).map((k) => k.id)).toContain(key.id);
    expect(await service.getKey(key.id)).toEqual(key);

    const test = await service.createKey({ businessId: business.id, kind: 'restricted', mode: 'test', permissions: { search: 'read' } });
    expect(test.key).toMatchObject({ mode: 'test', name: null, permissions: { search: 'read' } });
    expect(test.secret.startsWith('rk_test_')).toBe(true);
  });

  it('refuses bad key requests with codes the API maps', async () => {
    const { business } = await service.createBusiness({ name: 'Rules', simulated: false });
    const unknown = await refused(service.createKey({ businessId: 'biz_nope', kind: 'secret', mode: 'live' }));
    expect(unknown).toMatchObject({ code: 'not_found', status: 404 });
    expect(toApiError(unknown)).toMatchObject({ code: 'not_found', status: 404 });
    expect(await refused(service.createKey({ businessId: 'not an id', kind: 'secret', mode: 'live' }))).toMatchObject({ code: 'not_found' });
    expect(await refused(service.createKey({ businessId: business.id, kind: 'restricted', mode: 'live' }))).toMatchObject({ code: 'invalid_request', field: 'permissions' });
    const parse = await refused(service.createKey({ businessId: business.id, kind: 'restricted', mode: 'live', permissions: 'refunds:write' }));
    expect(toApiError(parse)).toMatchObject({ code: 'invalid_request', status: 400, field: 'permissions', message: expect.stringMatching(/Unknown resource "refunds"/) });
    expect(await refused(service.createKey({ businessId: business.id, kind: 'publishable', mode: 'live', permissions: 'payments:read' }))).toMatchObject({
      code: 'invalid_request',
    });
    // nothing was appended by the refusals
    expect((await store.readStream(BUSINESS_STREAM.stream(business.id))).length).toBe(3);
  });

  it('lists keys without ever exposing a hash or a key', async () => {
    const created = await service.createBusiness({ name: 'Lister', simulated: false });
    const extra = await service.createKey({ businessId: created.business.id, kind: 'secret', mode: 'test', name: 'Staging' });
    const keys = await service.listKeys(created.business.id);
    expect(keys.map((k) => k.type)).toEqual(['secret', 'publishable', 'secret']);
    expect(keys[2]).toEqual(extra.key);
    const text = JSON.stringify(keys) + JSON.stringify(created.keys) + JSON.stringify(extra.key);
    for (const secret of [created.secret_key, created.publishable_key, extra.secret]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(8, 36));
      expect(text).not.toContain(createHash('sha256').update(secret).digest('hex'));
    }
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(['business_id', 'created_at', 'id', 'kind', 'mode', 'name', 'permissions', 'redacted_key', 'revoked_at', 'type']);
    }
    expect(await service.listKeys('biz_unknown')).toEqual([]);
  });

  it('revokes a key: refused at once here, after the cache TTL in another process, and a second revoke is a conflict', async () => {
    let now = Date.now();
    const clock = () => now;
    const here = new BusinessService(store, db, runner, { clock });
    const elsewhere = new BusinessService(store, db, runner, { clock }); // another replica on the same database
    const created = await here.createBusiness({ name: 'Revoker', simulated: false });
    const { key, secret } = await here.createKey({ businessId: created.business.id, kind: 'secret', mode: 'live', name: 'old' });
    expect(await here.authenticate(secret)).not.toBeNull();
    expect(await elsewhere.authenticate(secret)).not.toBeNull(); // now cached there

    const revoked = await here.revokeKey(key.id, { requestId: 'req_revoke' });
    expect(revoked).toEqual({ ...key, revoked_at: expect.stringMatching(/Z$/) });
    expect(Date.parse(revoked.revoked_at!)).toBeGreaterThanOrEqual(Date.parse(key.created_at));
    expect(await here.authenticate(secret)).toBeNull();
    expect(await service.authenticate(secret)).toBeNull(); // an instance that had not cached it
    expect(await elsewhere.authenticate(secret)).not.toBeNull(); // its cache is allowed to lag...
    now += 2001;
    expect(await elsewhere.authenticate(secret)).toBeNull(); // ...by the TTL at most
    now += 60_000;
    expect(await here.authenticate(secret)).toBeNull();

    expect((await here.listKeys(created.business.id)).find((k) => k.id === key.id)?.revoked_at).toBe(revoked.revoked_at);
    expect(await here.authenticate(created.secret_key)).not.toBeNull(); // the others keep working
    const again = await refused(here.revokeKey(key.id));
    expect(again).toMatchObject({ code: 'api_key_revoked', status: 409 });
    expect(toApiError(again).status).toBe(409);
    expect(await refused(here.revokeKey('key_doesnotexist'))).toMatchObject({ code: 'not_found' });
    expect(await refused(here.revokeKey('garbage'))).toMatchObject({ code: 'not_found' });
    const other = await here.createBusiness({ name: 'Other', simulated: false });
    expect(await refused(here.revokeKey(other.keys[0].id, { businessId: created.business.id }))).toMatchObject({ code: 'not_found' });
    const events = await store.readStream(BUSINESS_STREAM.stream(created.business.id));
    expect(events.at(-1)).toMatchObject({ type: 'ApiKeyRevoked', data: { key_id: key.id }, metadata: { requestId: 'req_revoke' } });
  });

  it('revokes a publishable key too, with the real 2 s TTL', async () => {
    const created = await service.createBusiness({ name: 'Timer', simulated: true });
    const second = new BusinessService(store, db, runner);
    expect((await second.authenticate(created.publishable_key))?.key.type).toBe('publishable');
    await service.revokeKey(created.keys[1].id);
    expect(await service.authenticate(created.publishable_key)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 2050));
    expect(await second.authenticate(created.publishable_key)).toBeNull();
  });

  it('serves repeated authentications from its cache with one named statement per lookup', async () => {
    let now = Date.now();
    const { db: countingDb, statements } = counting(db);
    const cached = new BusinessService(store, countingDb, runner, { clock: () => now });
    const created = await service.createBusiness({ name: 'Cache', simulated: false });
    statements.length = 0;
    const first = await cached.authenticate(created.secret_key);
    expect(await cached.authenticate(created.secret_key)).toBe(first);
    expect(await cached.authenticate('sk_live_' + 'Z'.repeat(32))).toBeNull();
    expect(await cached.authenticate('sk_live_' + 'Z'.repeat(32))).toBeNull();
    expect(statements.map((s) => s.name)).toEqual(['businesses_authenticate', 'businesses_authenticate']);
    expect(Object.isFrozen(first) && Object.isFrozen(first!.key) && Object.isFrozen(first!.business)).toBe(true);
    now += 2001;
    expect(await cached.authenticate(created.secret_key)).toEqual(first);
    expect(statements).toHaveLength(3);
    expect(await cached.authenticate('not a key')).toBeNull();
    expect(statements).toHaveLength(3); // malformed keys never reach the database
  });

  it('decides a key creation again when another write got to the stream first, a bounded number of times', async () => {
    const { business } = await service.createBusiness({ name: 'Busy', simulated: false });
    const results = await Promise.all([0, 1].map((i) => service.createKey({ businessId: business.id, kind: 'secret', mode: 'live', name: `k${i}` })));
    const ids = results.map((r) => r.key.id);
    expect(new Set(ids).size).toBe(2);
    const listed = await service.listKeys(business.id);
    expect(listed.filter((k) => ids.includes(k.id)).map((k) => k.name).sort()).toEqual(['k0', 'k1']);
    for (const r of results) expect((await service.authenticate(r.secret))?.key.id).toBe(r.key.id);

    // a store that always reports a conflict: CommandRunner's bounded retries (10 attempts in all), then the error
    let appends = 0;
    const conflicting: EventStore = Object.assign(Object.create(store) as EventStore, {
      append: async (stream: string, _events: unknown, expected: number) => {
        appends++;
        throw new ConcurrencyError(stream, expected, expected + 1);
      },
      readStream: store.readStream.bind(store),
    });
    const unlucky = new BusinessService(conflicting, db, runner);
    await expect(unlucky.createKey({ businessId: business.id, kind: 'secret', mode: 'live' })).rejects.toBeInstanceOf(ConcurrencyError);
    expect(appends).toBe(10);
  });

  it('answers a write from its stream even when the projection is late, and reads catch up', async () => {
    const late = new BusinessService(store, db, { waitFor: async () => false });
    const created = await late.createBusiness({ name: 'Late', simulated: false });
    expect(created.business.name).toBe('Late');
    expect(created.keys).toHaveLength(2);
    await runner.waitFor((await store.headPosition())!, 10_000);
    expect(await service.getBusiness(created.business.id)).toEqual(created.business);
    expect(await service.listKeys(created.business.id)).toEqual(created.keys);
  });

  it('rebuilds the projection to identical rows, and verify finds no difference', async () => {
    const created = await service.createBusiness({ name: 'Rebuild', simulated: false });
    const extra = await service.createKey({ businessId: created.business.id, kind: 'restricted', mode: 'live', permissions: 'links:write,events:read' });
    await service.revokeKey(created.keys[1].id);
    const snapshot = async () => ({
      businesses: (await db.query(`SELECT * FROM businesses ORDER BY id`)).rows,
      keys: (await db.query(`SELECT * FROM api_keys ORDER BY id`)).rows,
    });
    const before = await snapshot();
    expect(before.businesses.length).toBeGreaterThan(5);
    expect(before.keys.some((k) => k.revoked_at !== null)).toBe(true);
    expect(before.keys.find((k) => k.id === extra.key.id)).toMatchObject({ permissions: { links: 'write', events: 'read' } });

    expect((await verifyProjection(store, db, businessesProjector)).differences).toEqual([]);
    await runner.stop();
    try {
      const rebuilt = await rebuildProjection(store, db, businessesProjector, undefined, 3); // small batches: revocations land in later batches
      expect(rebuilt.events).toBe(await store.countAfter(null));
      expect(await snapshot()).toEqual(before);
      expect((await verifyProjection(store, db, businessesProjector)).differences).toEqual([]);
      // a tampered row shows up
      await db.query(`UPDATE api_keys SET revoked_at = NULL WHERE id = $1`, [created.keys[1].id]);
      const dirty = await verifyProjection(store, db, businessesProjector);
      expect(dirty.differences.map((d) => d.table)).toEqual(['api_keys']);
      await rebuildProjection(store, db, businessesProjector);
      expect(await snapshot()).toEqual(before);
      const fresh = new BusinessService(store, db, runner);
      expect((await fresh.authenticate(extra.secret))?.key).toEqual(extra.key); // the named lookup survives the rebuilt tables
      expect(await fresh.authenticate(created.publishable_key)).toBeNull();
    } finally {
      runner = new ProjectionRunner(store, db, [businessesProjector]);
      await runner.start();
      service = new BusinessService(store, db, runner);
    }
  });
});

describe('business ids in events', () => {
  it('keeps a category per stream: business-<biz_id>, built and parsed by BUSINESS_STREAM', () => {
    const id = `biz_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    expect(BUSINESS_STREAM.stream(id)).toBe(`business-${id}`);
    expect(BUSINESS_STREAM.stream(id).split('-')[0]).toBe('business');
    expect(BUSINESS_STREAM.parse(`business-${id}`)).toBe(id);
    expect(BUSINESS_STREAM.owns('business-nope')).toBe(false); // not a business id
    expect(BUSINESS_STREAM.owns(`businessx-${id}`)).toBe(false);
    expect(() => BUSINESS_STREAM.stream('not an id')).toThrow();
  });
});
