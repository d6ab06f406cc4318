import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { Database } from '@lib/database';
import {
  BeginResult,
  IdempotencyStore,
  RedisIdempotencyStore,
  SqlIdempotencyStore,
  StoredResponse,
  createIdempotencyStore,
  fingerprint,
} from '../../libs/idempotency/src';
import { migratedDatabaseWithReplica } from '../support/postgres';
import { TEST_REDIS_URL } from '../support/redis';
import { migratedEmbedded } from '../support/embedded';

interface Backend {
  /** The store under test. */
  store: IdempotencyStore;
  /** A second store on the same storage, as another API replica would have (the same one for embedded). */
  replica: IdempotencyStore;
  /** The SQL database, for the SQL stores. */
  db?: Database;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LOCK_MS = 200;
const WAIT_MS = 300;

const response = (n = 1): StoredResponse => ({
  status: 201,
  headers: { 'content-type': 'application/json; charset=utf-8', location: `/payments/pay_${n}`, 'x-request-id': 'req_é' },
  body: JSON.stringify({ id: `pay_${n}`, amount: '1000', note: 'ünïcödé "quoted" \\ / \n end' }),
});

function started(result: BeginResult): string {
  if (result.state !== 'started') throw new Error(`expected started, got ${JSON.stringify(result)}`);
  return result.token;
}

function idempotencyContract(open: () => Promise<Backend>): void {
  let b: Backend;
  beforeAll(async () => {
    b = await open();
  });
  afterAll(async () => {
    await b?.close();
  });

  const newKey = () => `key_${randomUUID()}`;
  const scope = 'biz_1';
  const fpA = fingerprint('POST', '/payments', '{"amount":1000}');
  const fpB = fingerprint('POST', '/payments', '{"amount":2000}');

  it('started, complete, then a second begin replays the exact response (on any replica)', async () => {
    const key = newKey();
    const token = started(await b.store.begin(scope, key, fpA));
    expect(token).toEqual(expect.any(String));
    await b.store.complete(scope, key, token, response());
    expect(await b.store.begin(scope, key, fpA)).toEqual({ state: 'replay', response: response() });
    expect(await b.replica.begin(scope, key, fpA)).toEqual({ state: 'replay', response: response() });
  });

  it('a different fingerprint after completion is reused', async () => {
    const key = newKey();
    await b.store.complete(scope, key, started(await b.store.begin(scope, key, fpA)), response());
    expect(await b.store.begin(scope, key, fpB)).toEqual({ state: 'reused' });
    expect(await b.store.begin(scope, key, fpA)).toMatchObject({ state: 'replay' });
  });

  it('while running: the same fingerprint is in_use, a different one reused', async () => {
    const key = newKey();
    started(await b.store.begin(scope, key, fpA));
    expect(await b.store.begin(scope, key, fpA)).toEqual({ state: 'in_use' });
    expect(await b.replica.begin(scope, key, fpA)).toEqual({ state: 'in_use' });
    expect(await b.store.begin(scope, key, fpB)).toEqual({ state: 'reused' });
  });

  it('release frees the key: the next begin starts, whatever its fingerprint', async () => {
    const key = newKey();
    await b.store.release(scope, key, started(await b.store.begin(scope, key, fpA)));
    const second = started(await b.store.begin(scope, key, fpB));
    await b.store.release(scope, key, second);
    started(await b.store.begin(scope, key, fpA));
  });

  it('complete and release with a wrong token do nothing', async () => {
    const key = newKey();
    const token = started(await b.store.begin(scope, key, fpA));
    await b.store.complete(scope, key, 'not-the-token', response(2));
    expect(await b.store.begin(scope, key, fpA)).toEqual({ state: 'in_use' });
    await b.store.release(scope, key, 'not-the-token');
    expect(await b.store.begin(scope, key, fpA)).toEqual({ state: 'in_use' });
    await b.store.complete(scope, key, token, response(1));
    // once done, no token (not even the right one) changes it
    await b.store.release(scope, key, token);
    await b.store.complete(scope, key, token, response(3));
    expect(await b.store.begin(scope, key, fpA)).toEqual({ state: 'replay', response: response(1) });
  });

  // The two expiry scenarios run side by side, so the file waits for the clock once per backend.
  it("a crashed request's lock expires after lockTtlMs (its late complete/release then do nothing); a completed record expires after its ttl", async () => {
    const crashedRequest = async () => {
      const key = newKey();
      const crashed = started(await b.store.begin(scope, key, fpA, LOCK_MS));
      expect(await b.store.begin(scope, key, fpA, LOCK_MS)).toEqual({ state: 'in_use' });
      await sleep(WAIT_MS);
      const next = started(await b.replica.begin(scope, key, fpB, 10_000));
      expect(next).not.toBe(crashed);
      await b.store.complete(scope, key, crashed, response(9));
      await b.store.release(scope, key, crashed);
      expect(await b.store.begin(scope, key, fpB)).toEqual({ state: 'in_use' });
      await b.replica.complete(scope, key, next, response(2));
      expect(await b.store.begin(scope, key, fpB)).toEqual({ state: 'replay', response: response(2) });
    };
    const completedRecord = async () => {
      const key = newKey();
      await b.store.complete(scope, key, started(await b.store.begin(scope, key, fpA)), response(), LOCK_MS);
      expect(await b.store.begin(scope, key, fpA)).toMatchObject({ state: 'replay' });
      await sleep(WAIT_MS);
      started(await b.store.begin(scope, key, fpB));
    };
    await Promise.all([crashedRequest(), completedRecord()]);
  });

  it('scopes are independent', async () => {
    const key = newKey();
    const one = started(await b.store.begin('biz_one', key, fpA));
    const two = started(await b.store.begin('biz_two', key, fpB));
    await b.store.complete('biz_one', key, one, response(1));
    expect(await b.store.begin('biz_one', key, fpA)).toEqual({ state: 'replay', response: response(1) });
    expect(await b.store.begin('biz_two', key, fpB)).toEqual({ state: 'in_use' });
    await b.store.release('biz_two', key, two);
    started(await b.store.begin('biz_two', key, fpA));
    // a separator inside a scope or key cannot make two pairs collide
    started(await b.store.begin(`a:${key}`, 'b', fpA));
    started(await b.store.begin('a', `${key}:b`, fpA));
  });

  it('20 concurrent begins: exactly one started, 19 in_use; after complete, 20 concurrent replays', async () => {
    const key = newKey();
    const firsts = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? b.replica : b.store).begin(scope, key, fpA)));
    const winners = firsts.filter((r) => r.state === 'started');
    expect(winners).toHaveLength(1);
    expect(firsts.filter((r) => r.state === 'in_use')).toHaveLength(19);
    await b.store.complete(scope, key, started(winners[0]), response(7));
    const replays = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? b.replica : b.store).begin(scope, key, fpA)));
    expect(replays).toEqual(Array.from({ length: 20 }, () => ({ state: 'replay', response: response(7) })));
  });

  it('rejects a lock or ttl that is not a positive duration', async () => {
    await expect(b.store.begin(scope, newKey(), fpA, 0)).rejects.toThrow(RangeError);
    await expect(b.store.complete(scope, newKey(), 'token', response(), -1)).rejects.toThrow(RangeError);
  });
}

/** What only the SQL store does: purge its expired rows. */
function sqlPurge(get: () => Backend): void {
  it('purgeExpired deletes expired rows (running past their lock, done past their ttl) and keeps live ones', async () => {
    const { store, db } = get() as Backend & { store: SqlIdempotencyStore; db: Database };
    const [crashed, done, live] = [`purge_${randomUUID()}`, `purge_${randomUUID()}`, `purge_${randomUUID()}`];
    started(await store.begin('purge', crashed, 'fp', 50));
    await store.complete('purge', done, started(await store.begin('purge', done, 'fp')), response(), 50);
    started(await store.begin('purge', live, 'fp'));
    await sleep(150);
    expect(await store.purgeExpired()).toBeGreaterThanOrEqual(2);
    const { rows } = await db.query<{ key: string }>(`SELECT key FROM idempotency_keys WHERE scope = 'purge' ORDER BY key`);
    expect(rows.map((r) => r.key)).toEqual([live]);
  });
}

describe('idempotency store: redis', () => {
  const prefix = `idem-test:${randomUUID()}:`;
  const clients: Redis[] = [];
  let backend: Backend;

  idempotencyContract(async () => {
    const a = new Redis(TEST_REDIS_URL);
    const c = new Redis(TEST_REDIS_URL);
    clients.push(a, c);
    backend = {
      store: new RedisIdempotencyStore(a, prefix),
      replica: new RedisIdempotencyStore(c, prefix),
      close: async () => {
        await backend.store.close();
        await backend.replica.close();
      },
    };
    return backend;
  });

  it('stores records under its prefix, which expire by themselves', async () => {
    const key = newKeyFor('ttl');
    await backend.store.begin('s', key, 'fp', 5000);
    const names = await scanKeys(clients[0], prefix);
    expect(names.some((n) => n.endsWith(`:${key}`))).toBe(true);
    const name = names.find((n) => n.endsWith(`:${key}`))!;
    const ttl = await clients[0].pttl(name);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5000);
  });

  it('a store made from a URL owns and closes its client', async () => {
    const store = createIdempotencyStore({ redisUrl: TEST_REDIS_URL, db: undefined as unknown as Database, keyPrefix: prefix });
    expect(store).toBeInstanceOf(RedisIdempotencyStore);
    expect((await store.begin('s', newKeyFor('url'), 'fp')).state).toBe('started');
    await store.close();
  });

  afterAll(async () => {
    const [client] = clients;
    if (client) {
      const names = await scanKeys(client, prefix);
      if (names.length) await client.del(...names);
    }
    await Promise.all(clients.map((c) => c.quit()));
  });
});

describe('idempotency store: postgres', () => {
  let backend: Backend;
  idempotencyContract(async () => {
    const { db, second, close } = await migratedDatabaseWithReplica('idem', 5);
    backend = { store: new SqlIdempotencyStore(db), replica: new SqlIdempotencyStore(second), db, close };
    return backend;
  });
  sqlPurge(() => backend);
});

describe('idempotency store: embedded', () => {
  let backend: Backend;
  idempotencyContract(async () => {
    const { db, close } = await migratedEmbedded();
    const store = new SqlIdempotencyStore(db);
    backend = { store, replica: store, db, close };
    return backend;
  });
  sqlPurge(() => backend);

  it('the factory picks SQL without a redisUrl', () => {
    expect(createIdempotencyStore({ db: backend.db! })).toBeInstanceOf(SqlIdempotencyStore);
  });
});

describe('fingerprint', () => {
  it('is the sha256 hex of method, path and body; any difference changes it', () => {
    const fp = fingerprint('post', '/payments', '{}');
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint('POST', '/payments', '{}')).toBe(fp);
    expect(fingerprint('POST', '/payments', '{} ')).not.toBe(fp);
    expect(fingerprint('POST', '/payments/', '{}')).not.toBe(fp);
    expect(fingerprint('PUT', '/payments', '{}')).not.toBe(fp);
    // no join ambiguity between fields
    expect(fingerprint('POST', '/a', 'b')).not.toBe(fingerprint('POST', '/a\nb', ''));
  });
});

function newKeyFor(label: string): string {
  return `${label}_${randomUUID()}`;
}

async function scanKeys(client: Redis, prefix: string): Promise<string[]> {
  const names: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    names.push(...batch);
  } while (cursor !== '0');
  return names;
}
