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
import { STORE_KINDS } from '../support/fixtures';
import { rejectedBy } from '../support/thrown';
import { businessesPerSuite, twoReplicas } from './support';
import { committedHead, settledHead } from '../support/log-head';

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

describe.each(STORE_KINDS)('businesses and keys on %s', (kind) => {
  const suite = businessesPerSuite(kind, 'biz');

  it('creates a live business with a secret and a publishable key in one append, and authenticates with them at once', async () => {
    const created = await suite.service.createBusiness({ name: 'Acme Coffee', simulated: false, actor: { kind: 'person', id: 'usr_1', name: 'Ada' }, requestId: 'req_1' });
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
      email_alerts: true, // on by default; nothing is sent until an alert address is confirmed (decision 0035)
      product_updates: false,
      referral_code: expect.stringMatching(/^[a-z2-9]{8}$/), // generated at creation (decision 0035)
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
    const bySecret = await suite.service.authenticate(created.secret_key);
    expect(bySecret).toEqual({ key: created.keys[0], business });
    const byPublishable = await suite.service.authenticate(created.publishable_key);
    expect(byPublishable?.key).toMatchObject({ kind: 'api_key', type: 'publishable', business_id: business.id, permissions: null });
    expect(byPublishable?.business.id).toBe(business.id);
    expect(await suite.service.getBusiness(business.id)).toEqual(business);
    await suite.service.keyUse.flush();
    expect(await suite.service.listKeys(business.id)).toEqual(created.keys.map((k) => ({ ...k, last_used_at: expect.stringMatching(/Z$/) }))); // both just used

    // the stream: three events of one append, hashes only, metadata from the request
    const events = await suite.store.readStream(BUSINESS_STREAM.stream(business.id));
    expect(events.map((e) => e.type)).toEqual(['BusinessCreated', 'ApiKeyCreated', 'ApiKeyCreated']);
    expect(new Set(events.map((e) => e.position.commit)).size).toBe(1);
    // neither the events nor any table holds a key in clear
    const tables = await Promise.all(
      ['es_events', 'businesses', 'api_keys'].map(async (t) => (await suite.db.query<{ row: string }>(`SELECT t::text AS row FROM ${t} t`)).rows.map((r) => r.row).join('\n')),
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
    const created = await suite.service.createBusiness({ name: 'Sandbox', simulated: true, website: 'https://sandbox.test', support_email: 'help@sandbox.test' });
    expect(created.business).toMatchObject({ simulated: true, website: 'https://sandbox.test', support_email: 'help@sandbox.test' });
    expect(created.secret_key).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(created.publishable_key).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
    expect((await suite.service.authenticate(created.secret_key))?.business.simulated).toBe(true);
    expect(await rejectedBy(DomainError, suite.service.createKey({ businessId: created.business.id, kind: 'secret', mode: 'live' }))).toMatchObject({ code: 'invalid_request', field: 'mode' });
  });

  it('refuses unknown, malformed and wrong-prefix keys', async () => {
    const { secret_key } = await suite.service.createBusiness({ name: 'Shape', simulated: false });
    expect(await suite.service.authenticate('sk_live_' + '0'.repeat(32))).toBeNull();
    expect(await suite.service.authenticate('')).toBeNull();
    expect(await suite.service.authenticate(secret_key + 'x')).toBeNull();
    expect(await suite.service.authenticate(secret_key.replace('sk_live_', 'rk_live_'))).toBeNull();
    expect(await suite.service.authenticate(secret_key.toLowerCase() === secret_key ? secret_key.toUpperCase() : secret_key.toLowerCase())).toBeNull();
  });

  it('round-trips a restricted key and its permissions', async () => {
    const { business } = await suite.service.createBusiness({ name: 'Restricted', simulated: false });
    const { key, secret } = await suite.service.createKey({ businessId: business.id, kind: 'restricted', mode: 'live', permissions: 'webhooks:read,payments:write', name: 'CI' });
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
      last_used_at: null,
    });
    const found = await suite.service.authenticate(secret);
    expect(found?.key).toEqual(key);
    expect(keyAllows(found!.key, 'payments', 'read')).toBe(true);
    expect(keyAllows(found!.key, 'webhooks', 'write')).toBe(false);
    expect(keyAllows(found!.key, 'wallet', 'read')).toBe(false);
    expect((await suite.service.listKeys(business.id)).map((k) => k.id)).toContain(key.id);
    await suite.service.keyUse.flush();
    expect(await suite.service.getKey(key.id)).toEqual({ ...key, last_used_at: expect.stringMatching(/Z$/) }); // authenticated above

    const test = await suite.service.createKey({ businessId: business.id, kind: 'restricted', mode: 'test', permissions: { events: 'read' } });
    expect(test.key).toMatchObject({ mode: 'test', name: null, permissions: { events: 'read' } });
    expect(test.secret.startsWith('rk_test_')).toBe(true);
  });

  it('refuses bad key requests with codes the API maps', async () => {
    const { business } = await suite.service.createBusiness({ name: 'Rules', simulated: false });
    const unknown = await rejectedBy(DomainError, suite.service.createKey({ businessId: 'biz_nope', kind: 'secret', mode: 'live' }));
    expect(unknown).toMatchObject({ code: 'not_found', status: 404 });
    expect(toApiError(unknown)).toMatchObject({ code: 'not_found', status: 404 });
    expect(await rejectedBy(DomainError, suite.service.createKey({ businessId: 'not an id', kind: 'secret', mode: 'live' }))).toMatchObject({ code: 'not_found' });
    expect(await rejectedBy(DomainError, suite.service.createKey({ businessId: business.id, kind: 'restricted', mode: 'live' }))).toMatchObject({ code: 'invalid_request', field: 'permissions' });
    const parse = await rejectedBy(DomainError, suite.service.createKey({ businessId: business.id, kind: 'restricted', mode: 'live', permissions: 'refunds:write' }));
    expect(toApiError(parse)).toMatchObject({ code: 'invalid_request', status: 400, field: 'permissions', message: expect.stringMatching(/Unknown resource "refunds"/) });
    expect(await rejectedBy(DomainError, suite.service.createKey({ businessId: business.id, kind: 'publishable', mode: 'live', permissions: 'payments:read' }))).toMatchObject({
      code: 'invalid_request',
    });
    // nothing was appended by the refusals
    expect((await suite.store.readStream(BUSINESS_STREAM.stream(business.id))).length).toBe(3);
  });

  it('lists keys without ever exposing a hash or a key', async () => {
    const created = await suite.service.createBusiness({ name: 'Lister', simulated: false });
    const extra = await suite.service.createKey({ businessId: created.business.id, kind: 'secret', mode: 'test', name: 'Staging' });
    const keys = await suite.service.listKeys(created.business.id);
    expect(keys.map((k) => k.type)).toEqual(['secret', 'publishable', 'secret']);
    expect(keys[2]).toEqual(extra.key);
    const text = JSON.stringify(keys) + JSON.stringify(created.keys) + JSON.stringify(extra.key);
    for (const secret of [created.secret_key, created.publishable_key, extra.secret]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(8, 36));
      expect(text).not.toContain(createHash('sha256').update(secret).digest('hex'));
    }
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(['business_id', 'created_at', 'id', 'kind', 'last_used_at', 'mode', 'name', 'permissions', 'redacted_key', 'revoked_at', 'type']);
    }
    expect(await suite.service.listKeys('biz_unknown')).toEqual([]);
  });

  it('revokes a key: refused at once here, after the cache TTL in another process, and a second revoke is a conflict', async () => {
    const { here, elsewhere, advance } = twoReplicas(suite);
    const created = await here.createBusiness({ name: 'Revoker', simulated: false });
    const { key, secret } = await here.createKey({ businessId: created.business.id, kind: 'secret', mode: 'live', name: 'old' });
    expect(await here.authenticate(secret)).not.toBeNull();
    expect(await elsewhere.authenticate(secret)).not.toBeNull(); // now cached there

    await here.keyUse.flush();
    const revoked = await here.revokeKey(key.id, { requestId: 'req_revoke' });
    expect(revoked).toEqual({ ...key, revoked_at: expect.stringMatching(/Z$/), last_used_at: expect.stringMatching(/Z$/) }); // used above
    expect(Date.parse(revoked.revoked_at!)).toBeGreaterThanOrEqual(Date.parse(key.created_at));
    expect(await here.authenticate(secret)).toBeNull();
    expect(await suite.service.authenticate(secret)).toBeNull(); // an instance that had not cached it
    expect(await elsewhere.authenticate(secret)).not.toBeNull(); // its cache is allowed to lag...
    advance(2001);
    expect(await elsewhere.authenticate(secret)).toBeNull(); // ...by the TTL at most
    advance(60_000);
    expect(await here.authenticate(secret)).toBeNull();

    expect((await here.listKeys(created.business.id)).find((k) => k.id === key.id)?.revoked_at).toBe(revoked.revoked_at);
    expect(await here.authenticate(created.secret_key)).not.toBeNull(); // the others keep working
    const again = await rejectedBy(DomainError, here.revokeKey(key.id));
    expect(again).toMatchObject({ code: 'api_key_revoked', status: 409 });
    expect(toApiError(again).status).toBe(409);
    expect(await rejectedBy(DomainError, here.revokeKey('key_doesnotexist'))).toMatchObject({ code: 'not_found' });
    expect(await rejectedBy(DomainError, here.revokeKey('garbage'))).toMatchObject({ code: 'not_found' });
    const other = await here.createBusiness({ name: 'Other', simulated: false });
    expect(await rejectedBy(DomainError, here.revokeKey(other.keys[0].id, { businessId: created.business.id }))).toMatchObject({ code: 'not_found' });
    const events = await suite.store.readStream(BUSINESS_STREAM.stream(created.business.id));
    expect(events.at(-1)).toMatchObject({ type: 'ApiKeyRevoked', data: { key_id: key.id }, metadata: { requestId: 'req_revoke' } });
  });

  it('revokes a publishable key too, with the real 2 s TTL', async () => {
    const created = await suite.service.createBusiness({ name: 'Timer', simulated: true });
    const second = new BusinessService(suite.store, suite.db, suite.runner);
    expect((await second.authenticate(created.publishable_key))?.key.type).toBe('publishable');
    await suite.service.revokeKey(created.keys[1].id);
    expect(await suite.service.authenticate(created.publishable_key)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 2050));
    expect(await second.authenticate(created.publishable_key)).toBeNull();
  });

  it('serves repeated authentications from its cache with one named statement per lookup', async () => {
    let now = Date.now();
    const { db: countingDb, statements } = counting(suite.db);
    const cached = new BusinessService(suite.store, countingDb, suite.runner, { clock: () => now });
    const created = await suite.service.createBusiness({ name: 'Cache', simulated: false });
    statements.length = 0;
    const first = await cached.authenticate(created.secret_key);
    expect(await cached.authenticate(created.secret_key)).toBe(first);
    expect(await cached.authenticate('sk_live_' + 'Z'.repeat(32))).toBeNull();
    expect(await cached.authenticate('sk_live_' + 'Z'.repeat(32))).toBeNull();
    // the key's use is recorded once (decision 0039: at most once a minute), beside the lookups
    expect(statements.map((s) => s.name)).toEqual(['businesses_authenticate', 'api_key_use_record', 'businesses_authenticate']);
    expect(Object.isFrozen(first) && Object.isFrozen(first!.key) && Object.isFrozen(first!.business)).toBe(true);
    now += 2001;
    expect(await cached.authenticate(created.secret_key)).toEqual(first);
    expect(statements).toHaveLength(4); // a lookup; the use within the minute is not written again
    expect(await cached.authenticate('not a key')).toBeNull();
    expect(statements).toHaveLength(4); // malformed keys never reach the database
    await cached.keyUse.flush();
  });

  it('decides a key creation again when another write got to the stream first, a bounded number of times', async () => {
    const { business } = await suite.service.createBusiness({ name: 'Busy', simulated: false });
    const results = await Promise.all([0, 1].map((i) => suite.service.createKey({ businessId: business.id, kind: 'secret', mode: 'live', name: `k${i}` })));
    const ids = results.map((r) => r.key.id);
    expect(new Set(ids).size).toBe(2);
    const listed = await suite.service.listKeys(business.id);
    expect(listed.filter((k) => ids.includes(k.id)).map((k) => k.name).sort()).toEqual(['k0', 'k1']);
    for (const r of results) expect((await suite.service.authenticate(r.secret))?.key.id).toBe(r.key.id);

    // a suite.store that always reports a conflict: CommandRunner's bounded retries (10 attempts in all), then the error
    let appends = 0;
    const conflicting: EventStore = Object.assign(Object.create(suite.store) as EventStore, {
      append: async (stream: string, _events: unknown, expected: number) => {
        appends++;
        throw new ConcurrencyError(stream, expected, expected + 1);
      },
      readStream: suite.store.readStream.bind(suite.store),
    });
    const unlucky = new BusinessService(conflicting, suite.db, suite.runner);
    await expect(unlucky.createKey({ businessId: business.id, kind: 'secret', mode: 'live' })).rejects.toBeInstanceOf(ConcurrencyError);
    expect(appends).toBe(10);
  });

  it('answers a write from its stream even when the projection is late, and reads catch up', async () => {
    const late = new BusinessService(suite.store, suite.db, { waitFor: async () => false });
    const created = await late.createBusiness({ name: 'Late', simulated: false });
    expect(created.business.name).toBe('Late');
    expect(created.keys).toHaveLength(2);
    expect(await suite.runner.waitFor((await committedHead(suite.store))!, 10_000)).toBe(true);
    expect(await suite.service.getBusiness(created.business.id)).toEqual(created.business);
    expect(await suite.service.listKeys(created.business.id)).toEqual(created.keys);
  });

  it('rebuilds the projection to identical rows, and verify finds no difference', async () => {
    const created = await suite.service.createBusiness({ name: 'Rebuild', simulated: false });
    const extra = await suite.service.createKey({ businessId: created.business.id, kind: 'restricted', mode: 'live', permissions: 'links:write,events:read' });
    await suite.service.revokeKey(created.keys[1].id);
    const snapshot = async () => ({
      businesses: (await suite.db.query(`SELECT * FROM businesses ORDER BY id`)).rows,
      keys: (await suite.db.query(`SELECT * FROM api_keys ORDER BY id`)).rows,
    });
    const before = await snapshot();
    expect(before.businesses.length).toBeGreaterThan(5);
    expect(before.keys.some((k) => k.revoked_at !== null)).toBe(true);
    expect(before.keys.find((k) => k.id === extra.key.id)).toMatchObject({ permissions: { links: 'write', events: 'read' } });

    expect((await verifyProjection(suite.store, suite.db, businessesProjector)).differences).toEqual([]);
    await suite.runner.stop();
    await settledHead(suite.store); // the rebuild replays what readers see: wait until that is everything written
    try {
      const rebuilt = await rebuildProjection(suite.store, suite.db, businessesProjector, { batchSize: 3 }); // small batches: revocations land in later batches
      expect(rebuilt.events).toBe(await suite.store.countAfter(null));
      expect(await snapshot()).toEqual(before);
      expect((await verifyProjection(suite.store, suite.db, businessesProjector)).differences).toEqual([]);
      // a tampered row shows up
      await suite.db.query(`UPDATE api_keys SET revoked_at = NULL WHERE id = $1`, [created.keys[1].id]);
      const dirty = await verifyProjection(suite.store, suite.db, businessesProjector);
      expect(dirty.differences.map((d) => d.table)).toEqual(['api_keys']);
      await rebuildProjection(suite.store, suite.db, businessesProjector);
      expect(await snapshot()).toEqual(before);
      const fresh = new BusinessService(suite.store, suite.db, suite.runner);
      expect((await fresh.authenticate(extra.secret))?.key).toEqual(extra.key); // the named lookup survives the rebuilt tables
      expect(await fresh.authenticate(created.publishable_key)).toBeNull();
    } finally {
      suite.runner = new ProjectionRunner(suite.store, suite.db, [businessesProjector]);
      await suite.runner.start();
      suite.service = new BusinessService(suite.store, suite.db, suite.runner);
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
