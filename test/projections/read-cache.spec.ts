import { randomUUID } from 'node:crypto';
import { Sql } from '@lib/database';
import { EventStore, LogPosition, RecordedEvent } from '@lib/eventstore';
import { BatchChanges, ChangeAnnouncer, ChangedScopes, ProjectionRunner, Projector, ScopedReadCache } from '@lib/projections';
import { STORE_KINDS, storePerSuite } from '../support/fixtures';

/** A projector counting events per scope (`data.scope`) in its own table; says which scopes it changed unless `silent`. */
function counter(name: string, options: { silent?: boolean } = {}): Projector {
  return {
    name,
    tables: [name],
    schema: `CREATE TABLE IF NOT EXISTS ${name} (scope text PRIMARY KEY, n integer NOT NULL)`,
    async handle(events: RecordedEvent[], tx: Sql): Promise<void | BatchChanges> {
      const scopes = events.flatMap((e) => (typeof (e.data as { scope?: unknown }).scope === 'string' ? [(e.data as { scope: string }).scope] : []));
      for (const scope of scopes) await tx.query(`INSERT INTO ${name} (scope, n) VALUES ($1, 1) ON CONFLICT (scope) DO UPDATE SET n = ${name}.n + 1`, [scope]);
      return options.silent ? undefined : { scopes: [...new Set(scopes)] };
    },
  };
}

/** An event store whose subscriptions hand each batch on `ms` late: a process that notices the log after another has. */
function late(store: EventStore, ms: number): EventStore {
  const slow = Object.create(store) as EventStore;
  slow.subscribe = (handler, options) => store.subscribe(async (events) => (await new Promise((resolve) => setTimeout(resolve, ms)), handler(events)), options);
  return slow;
}

describe.each(STORE_KINDS)('ScopedReadCache over a running projection (%s)', (kind) => {
  const opened = storePerSuite(kind, 'rcache');

  const named = (label: string) => `${label}_${randomUUID().slice(0, 6)}`;
  const append = async (scope: string): Promise<LogPosition> => (await opened.store.append(`rc-${randomUUID()}`, [{ id: randomUUID(), type: 'Counted', data: { scope } }], 'no_stream')).position;

  /** A cache of `SELECT n` for a scope, counting the reads that reached the database. */
  function cached(runner: ChangeAnnouncer, projector: Projector) {
    const cache = new ScopedReadCache(runner, projector.name, { maxBytes: 1_000_000, maxAgeMs: 3_600_000 });
    let reads = 0;
    const read = (scope: string) =>
      cache.get(scope, 'n', async () => {
        reads++;
        const { rows } = await opened.db.query<{ n: number }>(`SELECT n FROM ${projector.name} WHERE scope = $1`, [scope]);
        return String(rows[0]?.n ?? 0);
      });
    return { cache, read, reads: () => reads };
  }

  /** A runner of `projector` alone, started for `fn` and stopped after it. */
  async function running(projector: Projector, fn: (runner: ProjectionRunner) => Promise<void>): Promise<void> {
    const runner = new ProjectionRunner(opened.store, opened.db, [projector]);
    await runner.start();
    try {
      await fn(runner);
    } finally {
      await runner.stop();
    }
  }

  it('keeps an answer until a batch changes its scope; the other scopes keep theirs', async () => {
    const [a, b] = [named('a'), named('b')];
    const projector = counter(named('rc'));
    await running(projector, async (runner) => {
      const { read, reads } = cached(runner, projector);
      expect(await runner.waitFor(await append(a))).toBe(true);
      expect(await runner.waitFor(await append(b))).toBe(true);
      expect([await read(a), await read(a), await read(b), await read(b)]).toEqual(['1', '1', '1', '1']);
      expect(reads()).toBe(2);

      expect(await runner.waitFor(await append(a))).toBe(true);
      expect(await read(a)).toBe('2'); // read again: its scope changed
      expect(await read(b)).toBe('1');
      expect(reads()).toBe(3); // b was not
    });
  });

  it('drops every answer when the projector does not say what it changed', async () => {
    const [a, b] = [named('a'), named('b')];
    const projector = counter(named('rcs'), { silent: true });
    await running(projector, async (runner) => {
      const { read, reads } = cached(runner, projector);
      expect(await runner.waitFor(await append(a))).toBe(true);
      expect([await read(a), await read(b)]).toEqual(['1', '0']);
      expect(await runner.waitFor(await append(a))).toBe(true);
      expect([await read(a), await read(b)]).toEqual(['2', '0']);
      expect(reads()).toBe(4);
    });
  });

  it('does not keep a read that a change overtook', async () => {
    const a = named('a');
    const projector = counter(named('rco'));
    await running(projector, async (runner) => {
      const cache = new ScopedReadCache(runner, projector.name, { maxBytes: 1_000_000, maxAgeMs: 3_600_000 });
      expect(await runner.waitFor(await append(a))).toBe(true);
      // the read takes the old row, then a batch for its scope commits before the read returns
      const stale = await cache.get(a, 'n', async () => {
        const { rows } = await opened.db.query<{ n: number }>(`SELECT n FROM ${projector.name} WHERE scope = $1`, [a]);
        expect(await runner.waitFor(await append(a))).toBe(true);
        return String(rows[0].n);
      });
      expect(stale).toBe('1');
      expect(await cache.get(a, 'n', async () => 'read again')).toBe('read again');
    });
  });

  it('with two processes on the same projection, one that lost the batch to the other drops its answers (checkpoints re-read)', async () => {
    const a = named('a');
    const projector = counter(named('rc2'));
    const first = new ProjectionRunner(opened.store, opened.db, [projector]);
    // the second process sees each batch 2 s after the first: the first always commits it
    const second = new ProjectionRunner(late(opened.store, 2_000), opened.db, [projector]);
    await first.start();
    await second.start();
    const announced: ChangedScopes[] = [];
    const unsubscribe = second.onChanged((name, scopes) => name === projector.name && announced.push(scopes));
    const { read, reads } = cached(second, projector);
    try {
      const before = await append(a);
      expect(await first.waitFor(before)).toBe(true);
      expect(await second.waitFor(before)).toBe(true);
      expect([await read(a), await read(a)]).toEqual(['1', '1']);
      expect(reads()).toBe(1);
      announced.length = 0;

      const last = await append(a);
      expect(await first.waitFor(last)).toBe(true);
      expect(await second.waitFor(last)).toBe(true); // once it knows, its answers are gone
      expect(announced).toContain(null);
      expect(await read(a)).toBe('2');
      expect(reads()).toBe(2);
    } finally {
      unsubscribe();
      await second.stop();
      await first.stop();
    }
  });

  it('keeps nothing where the projection does not run in this process (an API-only process)', async () => {
    const a = named('a');
    const projector = counter(named('rca'));
    const runner = new ProjectionRunner(opened.store, opened.db, [projector]); // never started
    const cache = new ScopedReadCache(runner, projector.name, { maxBytes: 1_000_000, maxAgeMs: 3_600_000 });
    let reads = 0;
    for (let i = 0; i < 3; i++) await cache.get(a, 'n', async () => String(++reads));
    expect(reads).toBe(3);
  });
});

describe('ScopedReadCache bounds', () => {
  /** An announcer that always announces, and lets the test announce changes. */
  function announcer() {
    let listener: ((projection: string, scopes: ChangedScopes) => void) | null = null;
    const runner: ChangeAnnouncer = {
      onChanged: (l) => ((listener = l), () => (listener = null)),
      announcesChanges: () => true,
    };
    return { runner, change: (scopes: ChangedScopes) => listener?.('p', scopes) };
  }

  it('reads again an answer older than maxAgeMs', async () => {
    let now = 1_000;
    const cache = new ScopedReadCache(announcer().runner, 'p', { maxBytes: 1_000, maxAgeMs: 500, now: () => now });
    let reads = 0;
    const read = () => cache.get('s', 'k', async () => `v${++reads}`);
    expect(await read()).toBe('v1');
    now += 500;
    expect(await read()).toBe('v1');
    now += 1;
    expect(await read()).toBe('v2');
  });

  it('keeps at most maxBytes, dropping the least recently used, and never one answer over a quarter of it', async () => {
    const cache = new ScopedReadCache(announcer().runner, 'p', { maxBytes: 40, maxAgeMs: 60_000 });
    const reads: string[] = [];
    const read = (key: string, value = key.repeat(10)) => cache.get('s', key, async () => (reads.push(key), value));
    await read('a');
    await read('b');
    await read('c');
    await read('d'); // 40 characters kept
    await read('a'); // used: now the most recent
    await read('e'); // over 40: b, the least recently used, goes
    expect(cache.stats).toMatchObject({ entries: 4, bytes: 40 });
    await read('a');
    await read('b');
    expect(reads).toEqual(['a', 'b', 'c', 'd', 'e', 'b']);
    await read('big', 'x'.repeat(11));
    await read('big', 'x'.repeat(11));
    expect(reads.filter((k) => k === 'big')).toHaveLength(2);
  });

  it('remembers at most maxScopes changed scopes, then drops everything instead', async () => {
    const { runner, change } = announcer();
    const cache = new ScopedReadCache(runner, 'p', { maxBytes: 1_000, maxAgeMs: 60_000, maxScopes: 2 });
    let reads = 0;
    const read = (scope: string) => cache.get(scope, 'k', async () => `${scope}${++reads}`);
    expect(await read('keep')).toBe('keep1');
    change(['x', 'y']);
    expect(await read('keep')).toBe('keep1'); // not among the changed scopes
    change(['z']); // a third scope: past maxScopes, all dropped
    expect(await read('keep')).toBe('keep2');
    expect(cache.stats.entries).toBe(1);
  });
});
