import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { Database, connectPostgres, migrate, openEmbedded } from '@lib/database';
import {
  ChallengeVerifier,
  RedisUsedChallengeTokens,
  SqlUsedChallengeTokens,
  TestChallengeVerifier,
  TurnstileVerifier,
  UsedChallengeTokens,
  createChallengeVerifier,
  testChallengeToken,
  tokenDigest,
} from '@lib/challenge';
import { eventually } from '../support/eventually';
import { createTestDatabase } from '../support/postgres';
import { TEST_REDIS_URL } from '../support/redis';
import { tempDir } from '../support/temp-dir';
import { TEST_TURNSTILE_SECRET, TurnstileStandIn, startTurnstileStandIn } from '../support/turnstile';

interface Backend {
  /** The used-token store of one process, and of another process on the same storage. */
  store: UsedChallengeTokens;
  replicaStore: UsedChallengeTokens;
  /** The rows or keys behind them, for "only a digest is stored". */
  stored(): Promise<string[]>;
  close(): Promise<void>;
}

const backends: [string, () => Promise<Backend>][] = [
  [
    'embedded database (PGlite)',
    async () => {
      const dir = tempDir();
      const db = await openEmbedded(dir.path);
      await migrate(db);
      // PGlite is one process's database: the "replica" is a second verifier on it
      return { store: new SqlUsedChallengeTokens(db), replicaStore: new SqlUsedChallengeTokens(db), stored: () => digests(db), close: async () => (await db.close(), dir.remove()) };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const database = await createTestDatabase('chal');
      const a = connectPostgres(database.url, 4);
      const b = connectPostgres(database.url, 4);
      await migrate(a);
      return {
        store: new SqlUsedChallengeTokens(a),
        replicaStore: new SqlUsedChallengeTokens(b),
        stored: () => digests(a),
        close: async () => {
          await a.close();
          await b.close();
          await database.drop();
        },
      };
    },
  ],
  [
    'Redis',
    async () => {
      const prefix = `test:challenge:${randomUUID()}:`;
      const inspect = new Redis(TEST_REDIS_URL);
      const aClient = new Redis(TEST_REDIS_URL);
      const a = new RedisUsedChallengeTokens(aClient, prefix);
      const bClient = new Redis(TEST_REDIS_URL);
      const b = new RedisUsedChallengeTokens(bClient, prefix);
      return {
        store: a,
        replicaStore: b,
        stored: async () => (await inspect.keys(`${prefix}*`)).map((k) => k.slice(prefix.length)),
        close: async () => {
          const keys = await inspect.keys(`${prefix}*`);
          if (keys.length > 0) await inspect.del(...keys);
          await inspect.quit();
          await bClient.quit();
          await aClient.quit();
        },
      };
    },
  ],
];

async function digests(db: Database): Promise<string[]> {
  return (await db.query<{ digest: string }>('SELECT digest FROM used_challenge_tokens')).rows.map((r) => r.digest);
}

describe.each(backends)('the test verifier on %s', (_name, open) => {
  let backend: Backend;
  let verifier: ChallengeVerifier;
  let replica: ChallengeVerifier;
  beforeAll(async () => {
    backend = await open();
    verifier = new TestChallengeVerifier(backend.store);
    replica = new TestChallengeVerifier(backend.replicaStore);
  });
  afterAll(async () => {
    await backend?.close();
  });

  it('a test_pass token passes once for its form; again, on this or another instance, it is already used', async () => {
    const token = testChallengeToken('sign_up');
    expect(await verifier.verify({ token, form: 'sign_up', ip: '203.0.113.9' })).toEqual({ passed: true });
    expect(await verifier.verify({ token, form: 'sign_up', ip: '203.0.113.9' })).toEqual({ passed: false, reason: 'already_used' });
    expect(await replica.verify({ token, form: 'sign_up', ip: '203.0.113.9' })).toEqual({ passed: false, reason: 'already_used' });
    // only a digest of the token is kept
    const stored = await backend.stored();
    expect(stored).toContain(tokenDigest(token));
    expect(stored.join(' ')).not.toContain(token);
  });

  it('a token is bound to its form: another form fails it (without using it up)', async () => {
    const token = testChallengeToken('sign_in');
    expect(await verifier.verify({ token, form: 'sign_up', ip: null })).toEqual({ passed: false, reason: 'wrong_form' });
    expect(await verifier.verify({ token, form: 'password_reset', ip: null })).toEqual({ passed: false, reason: 'wrong_form' });
    expect(await replica.verify({ token, form: 'sign_in', ip: null })).toEqual({ passed: true });
    expect(await verifier.verify({ token, form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'already_used' });
  });

  it('anything else fails: missing, test_fail, an unknown form, a short nonce, odd characters, too long', async () => {
    expect(await verifier.verify({ token: undefined, form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'missing' });
    expect(await verifier.verify({ token: '', form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'missing' });
    for (const token of ['test_fail.sign_in.abcdefgh', 'test_pass.sign_out.abcdefgh', 'test_pass.sign_in.short', 'test_pass.sign_in.abc def gh', 'test_pass.sign_in.abcdefgh.', 'TEST_PASS.sign_in.abcdefgh', `test_pass.sign_in.${'a'.repeat(129)}`, 'x'.repeat(5000), '0.turnstile-token']) {
      expect(await verifier.verify({ token, form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'refused' });
    }
  });

  it('the same token sent at once to both instances passes exactly once', async () => {
    const token = testChallengeToken('password_reset');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? verifier : replica).verify({ token, form: 'password_reset', ip: null })));
    expect(results.filter((r) => r.passed)).toHaveLength(1);
    expect(results.filter((r) => !r.passed && r.reason === 'already_used')).toHaveLength(11);
  });

  it('a used token is remembered for its time, then forgotten (the store expires it)', async () => {
    const token = testChallengeToken('sign_in');
    expect(await backend.store.claim(token, 150)).toBe(true);
    expect(await backend.replicaStore.claim(token, 150)).toBe(false);
    await eventually(() => backend.replicaStore.claim(token, 60_000), { what: 'the claim expired and was taken over', timeoutMs: 10_000 });
    expect(await backend.store.claim(token, 60_000)).toBe(false);
  });
});

describe('the used-token store cannot be reached', () => {
  it('fails closed: unavailable', async () => {
    const store = new RedisUsedChallengeTokens('redis://127.0.0.1:1');
    try {
      const verifier = new TestChallengeVerifier(store);
      expect(await verifier.verify({ token: testChallengeToken('sign_in'), form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'unavailable' });
    } finally {
      await store.close();
    }
  });

  it('the SQL store purges rows past their time (through the verifier, as the app sweeps)', async () => {
    const dir = tempDir();
    const db = await openEmbedded(dir.path);
    try {
      await migrate(db);
      const store = new SqlUsedChallengeTokens(db);
      await store.claim('a-token', 1);
      await store.claim('b-token', 60_000);
      // the verifier's purgeExpired (the app's hourly sweep) reaches the store
      await eventually(() => new TestChallengeVerifier(store).purgeExpired(), (n) => n === 1, { what: 'the expired row purged' });
      expect(await digests(db)).toEqual([tokenDigest('b-token')]);
    } finally {
      await db.close();
      dir.remove();
    }
  });
});

describe('the Turnstile verifier against a siteverify stand-in', () => {
  let turnstile: TurnstileStandIn;
  let dir: { path: string; remove(): void };
  let db: Database;
  let verifier: TurnstileVerifier;
  let replica: TurnstileVerifier;
  const logs: string[] = [];

  beforeAll(async () => {
    turnstile = await startTurnstileStandIn();
    dir = tempDir();
    db = await openEmbedded(dir.path);
    await migrate(db);
    const options = { secretKey: TEST_TURNSTILE_SECRET, verifyUrl: turnstile.url, timeoutMs: 300, log: (line: string) => logs.push(line) };
    verifier = new TurnstileVerifier(options, new SqlUsedChallengeTokens(db));
    replica = new TurnstileVerifier(options, new SqlUsedChallengeTokens(db));
  });
  afterAll(async () => {
    await turnstile?.close();
    await db?.close();
    dir?.remove();
  });
  afterEach(() => {
    for (const line of logs) expect(line).not.toContain(TEST_TURNSTILE_SECRET);
  });

  it('a solved token whose action is the form passes, sending secret, response, remoteip and an idempotency key', async () => {
    const token = turnstile.issue('sign_in');
    expect(await verifier.verify({ token, form: 'sign_in', ip: '198.51.100.7' })).toEqual({ passed: true });
    const sent = turnstile.requests.at(-1)!;
    expect(sent.contentType).toBe('application/json');
    expect(sent.fields).toEqual({ secret: TEST_TURNSTILE_SECRET, response: token, remoteip: '198.51.100.7', idempotency_key: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('a token solved for another form fails (wrong_form)', async () => {
    expect(await verifier.verify({ token: turnstile.issue('sign_up'), form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'wrong_form' });
    expect(await verifier.verify({ token: turnstile.issue('login'), form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'wrong_form' });
  });

  it('a token validated before: Turnstile says timeout-or-duplicate → already_used', async () => {
    const token = turnstile.issue('sign_up');
    expect(await verifier.verify({ token, form: 'sign_up', ip: null })).toEqual({ passed: true });
    expect(await replica.verify({ token, form: 'sign_up', ip: null })).toEqual({ passed: false, reason: 'already_used' });
  });

  it('a reuse Turnstile has not heard of yet is still refused by the shared used-token store', async () => {
    const token = turnstile.issue('password_reset');
    expect(await verifier.verify({ token, form: 'password_reset', ip: null })).toEqual({ passed: true });
    turnstile.forgetValidations();
    expect(await replica.verify({ token, form: 'password_reset', ip: null })).toEqual({ passed: false, reason: 'already_used' });
  });

  it('an unknown token is refused; missing or too long never reaches Turnstile', async () => {
    expect(await verifier.verify({ token: '0.made-up', form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'refused' });
    const before = turnstile.requests.length;
    expect(await verifier.verify({ token: undefined, form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'missing' });
    expect(await verifier.verify({ token: 'x'.repeat(2049), form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'refused' });
    expect(turnstile.requests.length).toBe(before);
  });

  it('a wrong secret fails every challenge and tells the operator, without the secret', async () => {
    const wrong = new TurnstileVerifier({ secretKey: 'wrong-secret-value', verifyUrl: turnstile.url, log: (line) => logs.push(line) }, new SqlUsedChallengeTokens(db));
    expect(await wrong.verify({ token: turnstile.issue('sign_in'), form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'unavailable' });
    expect(logs.at(-1)).toBe("Turnstile siteverify refused this deployment's request (invalid-input-secret): check TURNSTILE_SECRET_KEY");
    expect(logs.join('\n')).not.toContain('wrong-secret-value');
  });

  it('one failed answer is retried with the same idempotency key; two fail closed', async () => {
    const token = turnstile.issue('sign_in');
    turnstile.fail(1, 502);
    const before = turnstile.requests.length;
    expect(await verifier.verify({ token, form: 'sign_in', ip: null })).toEqual({ passed: true });
    const [first, retry] = turnstile.requests.slice(before);
    expect(retry.fields.idempotency_key).toBe(first.fields.idempotency_key);

    turnstile.fail(2, 500);
    expect(await verifier.verify({ token: turnstile.issue('sign_in'), form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'unavailable' });
    expect(logs.at(-1)).toMatch(/^Turnstile siteverify at http:\/\/127\.0\.0\.1:\d+ could not be reached/);
  });

  it('a siteverify that never answers fails closed after the timeout', async () => {
    turnstile.fail(2, 'hang');
    const started = Date.now();
    expect(await verifier.verify({ token: turnstile.issue('sign_in'), form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('siteverify down (connection refused) → unavailable', async () => {
    const down = new TurnstileVerifier({ secretKey: TEST_TURNSTILE_SECRET, verifyUrl: 'http://127.0.0.1:1/turnstile/v0/siteverify', log: (line) => logs.push(line) }, new SqlUsedChallengeTokens(db));
    expect(await down.verify({ token: turnstile.issue('sign_in'), form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'unavailable' });
  });
});

describe('createChallengeVerifier', () => {
  it('test, turnstile, or none (every challenge fails) from the configuration', async () => {
    const dir = tempDir();
    const db = await openEmbedded(dir.path);
    try {
      await migrate(db);
      const base = { turnstileSecretKey: null, turnstileVerifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify' };
      expect(createChallengeVerifier({ ...base, challengeProvider: 'test' }, db)).toBeInstanceOf(TestChallengeVerifier);
      expect(createChallengeVerifier({ ...base, challengeProvider: 'turnstile', turnstileSecretKey: 's' }, db)).toBeInstanceOf(TurnstileVerifier);
      const none = createChallengeVerifier({ ...base, challengeProvider: null }, db);
      expect(await none.verify({ token: testChallengeToken('sign_in'), form: 'sign_in', ip: null })).toEqual({ passed: false, reason: 'not_configured' });
      expect(() => createChallengeVerifier({ ...base, challengeProvider: 'turnstile' }, db)).toThrow('TURNSTILE_SECRET_KEY');
    } finally {
      await db.close();
      dir.remove();
    }
  });
});
