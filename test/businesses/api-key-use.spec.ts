import { ApiKeyUse, KEY_USE_GRANULARITY_MS, keyLastUsedAt } from '@lib/businesses';
import { Database, Row } from '@lib/database';
import { storePerSuite } from '../support/fixtures';

/** The database, with the statements sent through it counted, and a switch that makes them fail. */
function watched(db: Database): { db: Database; names: (string | undefined)[]; failing: { on: boolean } } {
  const names: (string | undefined)[] = [];
  const failing = { on: false };
  return {
    names,
    failing,
    db: {
      ...db,
      query: <R extends object = Row>(text: string, params?: unknown[], name?: string) => {
        names.push(name);
        return failing.on ? Promise.reject(new Error('database down')) : db.query<R>(text, params, name);
      },
    },
  };
}

/**
 * An API key's `last_used_at` (decision 0039): recorded without a write per request — one
 * statement per key per minute in a process, started off the request path; a row another process
 * wrote less than a minute before is left as it is; a failed write is tried again on the next use.
 */
describe('API key use', () => {
  const opened = storePerSuite('postgres', 'keyuse');
  let now: number;
  const clock = () => now;
  const keyId = () => `key_${Math.random().toString(36).slice(2, 14)}`;

  beforeEach(() => {
    now = Date.parse('2026-11-27T10:00:00.000Z');
  });

  it('writes a key’s use once a minute at most in a process, never waited for', async () => {
    const { db, names } = watched(opened.db);
    const use = new ApiKeyUse(db, { clock });
    const key = keyId();
    expect(await keyLastUsedAt(opened.db, key)).toBeNull();
    for (let i = 0; i < 5; i++) expect(use.note(key)).toBeUndefined(); // synchronous: nothing to await
    await use.flush();
    expect(names).toEqual(['api_key_use_record']);
    expect((await keyLastUsedAt(opened.db, key))?.toISOString()).toBe('2026-11-27T10:00:00.000Z');

    now += KEY_USE_GRANULARITY_MS - 1;
    use.note(key);
    expect(names).toHaveLength(1);
    now += 1;
    use.note(key);
    await use.flush();
    expect(names).toHaveLength(2);
    expect((await keyLastUsedAt(opened.db, key))?.toISOString()).toBe('2026-11-27T10:01:00.000Z');

    const other = keyId(); // each key on its own minute
    use.note(other);
    await use.flush();
    expect(names).toHaveLength(3);
    expect((await keyLastUsedAt(opened.db, other))?.toISOString()).toBe('2026-11-27T10:01:00.000Z');
  });

  it('leaves a row another process wrote less than a minute before as it is', async () => {
    const a = new ApiKeyUse(opened.db, { clock });
    const b = new ApiKeyUse(opened.db, { clock });
    const key = keyId();
    a.note(key);
    await a.flush();
    now += 10_000;
    b.note(key); // its first use here: a statement, which leaves a's row
    await b.flush();
    expect((await keyLastUsedAt(opened.db, key))?.toISOString()).toBe('2026-11-27T10:00:00.000Z');
    now += 60_000;
    b.note(key);
    await b.flush();
    expect((await keyLastUsedAt(opened.db, key))?.toISOString()).toBe('2026-11-27T10:01:10.000Z');
    now -= 30_000;
    a.note(key); // an older use never moves it back
    await a.flush();
    expect((await keyLastUsedAt(opened.db, key))?.toISOString()).toBe('2026-11-27T10:01:10.000Z');
  });

  it('a failed write is reported and tried again on the key’s next use', async () => {
    const { db, names, failing } = watched(opened.db);
    const errors: unknown[] = [];
    const use = new ApiKeyUse(db, { clock, onError: (error) => errors.push(error) });
    const key = keyId();
    failing.on = true;
    use.note(key);
    await use.flush();
    expect(errors).toEqual([expect.objectContaining({ message: 'database down' })]);
    failing.on = false;
    now += 1000;
    use.note(key);
    await use.flush();
    expect(names).toHaveLength(2);
    expect((await keyLastUsedAt(opened.db, key))?.toISOString()).toBe('2026-11-27T10:00:01.000Z');
  });

  it('remembers a bounded number of keys: a forgotten one is written again on its next use', async () => {
    const { db, names } = watched(opened.db);
    const use = new ApiKeyUse(db, { clock, maxEntries: 2 });
    const [k1, k2, k3] = [keyId(), keyId(), keyId()];
    for (const key of [k1, k2, k3, k3, k2, k1]) use.note(key);
    await use.flush();
    expect(names).toHaveLength(4); // k1, k2, k3, then k1 again (evicted by k3)
  });
});
