import { randomUUID } from 'node:crypto';
import { Database } from '@lib/database';
import { EventStore, LogPosition, NewEvent, RecordedEvent, comparePositions } from '@lib/eventstore';
import {
  ProjectionRunner,
  applyBatch,
  Projector,
  projectionStatus,
  readCheckpoint,
  rebuildProjection,
  streamCatalog,
  verifyProjection,
} from '@lib/projections';
import { Client } from 'pg';
import { STORE_KINDS, storePerSuite } from '../support/fixtures';
import { TEST_POSTGRES_URL } from '../support/postgres';

const event = (type: string): NewEvent => ({ id: randomUUID(), type, data: { note: 'ü' } });

/** Appends and returns the position of the last event (the log's visible head can trail it
 *  while another transaction is open, so tests wait for this instead). */
async function appendMany(store: EventStore, prefix: string, streams: number, perStream: number): Promise<LogPosition> {
  let last: LogPosition | null = null;
  for (let s = 0; s < streams; s++) {
    last = (await store.append(`${prefix}-${s}`, Array.from({ length: perStream }, (_, i) => event(`T${i}`)), 'no_stream')).position;
  }
  return last!;
}

async function catalog(db: Database, table: string, prefix: string) {
  const { rows } = await db.query<{ stream_id: string; events: string; last_revision: string; last_event_type: string }>(
    `SELECT stream_id, events::text, last_revision::text, last_event_type FROM ${table} WHERE stream_id LIKE $1 ORDER BY stream_id`,
    [`${prefix}-%`],
  );
  return rows.map((r) => ({ stream: r.stream_id, events: Number(r.events), lastRevision: Number(r.last_revision), lastType: r.last_event_type }));
}

describe.each(STORE_KINDS)('projection engine on %s', (kind) => {
  const opened = storePerSuite(kind, 'proj');
  let store: EventStore;
  let db: Database;
  beforeAll(() => ({ store, db } = opened));

  /** Each test gets a fresh checkpoint and tables by projecting under its own name. */
  const catalogNamed = (name: string): Projector => streamCatalog(name);

  /** `streams` × `perStream` new events projected by a catalog of its own, its runner stopped: the projector, the streams' prefix and their rows. */
  const projected = async (label: string, streams: number, perStream: number) => {
    const projector = catalogNamed(`catalog_${randomUUID().slice(0, 6)}`);
    const prefix = `${label}${randomUUID().slice(0, 6)}`;
    const last = await appendMany(store, prefix, streams, perStream);
    const runner = new ProjectionRunner(store, db, [projector]);
    await runner.start();
    expect(await runner.waitFor(last)).toBe(true);
    await runner.stop();
    return { projector, prefix, before: await catalog(db, projector.name, prefix) };
  };

  it('projects the log, resumes where it stopped, and reports position and lag', async () => {
    const projector = catalogNamed(`catalog_${randomUUID().slice(0, 6)}`);
    const prefix = `acct${randomUUID().slice(0, 6)}`;
    const head = await appendMany(store, prefix, 3, 4);

    const runner = new ProjectionRunner(store, db, [projector], { batchSize: 5 });
    const applied: [string, number][] = [];
    runner.onApplied((name, events) => applied.push([name, events]));
    await runner.start();
    expect(await runner.waitFor(head)).toBe(true);
    // listeners hear of every committed batch (the webhook dispatcher wakes on the events projection's)
    expect(applied.every(([name]) => name === projector.name)).toBe(true);
    expect(applied.reduce((n, [, events]) => n + events, 0)).toBeGreaterThanOrEqual(12);
    expect(await catalog(db, projector.name, prefix)).toEqual([0, 1, 2].map((s) => ({ stream: `${prefix}-${s}`, events: 4, lastRevision: 3, lastType: 'T3' })));
    const [running] = await runner.status();
    expect(running).toMatchObject({ name: projector.name, state: 'running', lag: 0 });
    expect(comparePositions(running.position!, head)).toBe(0);
    await runner.stop();

    // while stopped, the log moves on: the lag says by how much
    await store.append(`${prefix}-0`, [event('T4'), event('T5')], 3);
    const last = (await store.append(`${prefix}-9`, [event('T0')], 'no_stream')).position;
    const [stopped] = await projectionStatus(store, db, [projector]);
    expect(stopped).toMatchObject({ state: 'stopped', lag: 3 });

    const resumed = new ProjectionRunner(store, db, [projector]);
    await resumed.start();
    expect(await resumed.waitFor(last)).toBe(true);
    await resumed.stop();
    const rows = await catalog(db, projector.name, prefix);
    expect(rows.find((r) => r.stream === `${prefix}-0`)).toEqual({ stream: `${prefix}-0`, events: 6, lastRevision: 5, lastType: 'T5' });
    expect(rows.find((r) => r.stream === `${prefix}-9`)).toEqual({ stream: `${prefix}-9`, events: 1, lastRevision: 0, lastType: 'T0' });
  });

  it('never applies a batch twice or skips one when the handler fails mid-batch', async () => {
    const name = `catalog_${randomUUID().slice(0, 6)}`;
    const prefix = `fail${randomUUID().slice(0, 6)}`;
    const last = await appendMany(store, prefix, 4, 3);
    let failuresLeft = 2;
    const flaky: Projector = {
      ...catalogNamed(name),
      async handle(events: RecordedEvent[], tx) {
        await streamCatalog(name).handle(events, tx); // rows written...
        if (events.some((e) => e.stream === `${prefix}-2`) && failuresLeft-- > 0) throw new Error('crash after writing rows');
      },
    };
    const errors: string[] = [];
    const runner = new ProjectionRunner(store, db, [flaky], { batchSize: 4, onError: (_n, e) => errors.push((e as Error).message) });
    await runner.start();
    expect(await runner.waitFor(last, 15_000)).toBe(true);
    await runner.stop();
    // each failure names the projection, the batch's positions and its first event, then the projector's own error
    const failed = new RegExp(`^projection ${name} failed on 4 event\\(s\\) at \\d+/\\d+\\.\\.\\d+/\\d+, the first T\\d of ${prefix}-\\d: crash after writing rows$`);
    expect(errors).toEqual([expect.stringMatching(failed), expect.stringMatching(failed)]);
    expect(await catalog(db, name, prefix)).toEqual([0, 1, 2, 3].map((s) => ({ stream: `${prefix}-${s}`, events: 3, lastRevision: 2, lastType: 'T2' })));
  });

  it('keeps two runners on one database from applying the same events twice', async () => {
    const projector = catalogNamed(`catalog_${randomUUID().slice(0, 6)}`);
    const prefix = `pair${randomUUID().slice(0, 6)}`;
    const first = new ProjectionRunner(store, db, [projector], { batchSize: 3 });
    const second = new ProjectionRunner(store, db, [projector], { batchSize: 3 });
    await first.start();
    await second.start();
    let last: LogPosition | null = null;
    for (let i = 0; i < 20; i++) last = (await store.append(`${prefix}-${i}`, [event('A'), event('B')], 'no_stream')).position;
    // (the head the log shows can trail the last append while a runner's transaction is open,
    // so wait for the position the append itself reported)
    const [a, b] = await Promise.all([first.waitFor(last!, 15_000), second.waitFor(last!, 15_000)]);
    expect([a, b]).toEqual([true, true]);
    await first.stop();
    await second.stop();
    const { rows } = await db.query<{ total: string }>(`SELECT coalesce(sum(events), 0)::text AS total FROM ${projector.name} WHERE stream_id LIKE $1`, [`${prefix}%`]);
    expect(Number(rows[0].total)).toBe(40);
    const checkpoint = await readCheckpoint(db, projector.name);
    expect(comparePositions(checkpoint.position!, (await store.headPosition())!)).toBe(0);
  });

  it('lets an API-only process wait for its writes through the checkpoints the worker moves', async () => {
    const projector = catalogNamed(`catalog_${randomUUID().slice(0, 6)}`);
    const apiSide = new ProjectionRunner(store, db, [projector], { catchUpAfterMs: null }); // never started, never catches up: reads checkpoints
    const last = await appendMany(store, `api${randomUUID().slice(0, 6)}`, 2, 2);
    expect(await apiSide.waitFor(last, 300)).toBe(false); // no worker yet: nothing moves
    const worker = new ProjectionRunner(store, db, [projector]);
    await worker.start();
    expect(await apiSide.waitFor(last, 10_000)).toBe(true);
    await worker.stop();
  });

  it('lets an API-only process with no worker running apply what its write needs itself, once, beside a worker that starts meanwhile', async () => {
    const projector = catalogNamed(`catalog_${randomUUID().slice(0, 6)}`); // its tables do not exist yet: no process ever ran it
    const prefix = `cu${randomUUID().slice(0, 6)}`;
    const apiSide = new ProjectionRunner(store, db, [projector], { catchUpAfterMs: 50, batchSize: 3 });
    const otherApi = new ProjectionRunner(store, db, [projector], { catchUpAfterMs: 50, batchSize: 3 });
    const first = await appendMany(store, `${prefix}a`, 4, 2);
    expect(await apiSide.waitFor(first, 10_000)).toBe(true); // no worker: it applied the batches itself
    expect(comparePositions((await readCheckpoint(db, projector.name)).position!, first)).toBeGreaterThanOrEqual(0);
    // two API processes and a worker race over the next writes: each batch is applied once
    const worker = new ProjectionRunner(store, db, [projector], { batchSize: 3 });
    const last = await appendMany(store, `${prefix}b`, 10, 2);
    const [a, b] = await Promise.all([apiSide.waitFor(last, 15_000), otherApi.waitFor(last, 15_000), worker.start()]);
    expect([a, b]).toEqual([true, true]);
    await worker.stop();
    const { rows } = await db.query<{ total: string }>(`SELECT coalesce(sum(events), 0)::text AS total FROM ${projector.name} WHERE stream_id LIKE $1`, [`${prefix}%`]);
    expect(Number(rows[0].total)).toBe(28);
    expect((await readCheckpoint(db, projector.name)).events).toBeGreaterThanOrEqual(28);
  });

  it('verifies a projection that has never run (no tables yet) as equal to an empty replay', async () => {
    const projector = catalogNamed(`catalog_${randomUUID().slice(0, 6)}`);
    const result = await verifyProjection(store, db, projector);
    expect(result).toMatchObject({ projector: projector.name, position: null, events: 0, differences: [] });
  });

  it('rebuilds from zero to the same rows, and verify finds tampered rows', async () => {
    const { projector, prefix, before } = await projected('rb', 5, 2);
    const { rows: allBefore } = await db.query(`SELECT * FROM ${projector.name} ORDER BY stream_id`);

    const clean = await verifyProjection(store, db, projector);
    expect(clean.differences).toEqual([]);
    expect(clean.events).toBeGreaterThanOrEqual(10);

    // a bug (here: a hand edit) makes the live table wrong
    await db.query(`UPDATE ${projector.name} SET events = 99 WHERE stream_id = $1`, [`${prefix}-1`]);
    await db.query(`DELETE FROM ${projector.name} WHERE stream_id = $1`, [`${prefix}-3`]);
    const dirty = await verifyProjection(store, db, projector);
    expect(dirty.differences).toHaveLength(1);
    const [diff] = dirty.differences;
    expect(diff.table).toBe(projector.name);
    expect(diff.onlyLive).toEqual([expect.objectContaining({ stream_id: `${prefix}-1`, events: 99 })]);
    expect(diff.onlyRebuilt.map((r) => r.stream_id).sort()).toEqual([`${prefix}-1`, `${prefix}-3`]);
    // scratch schemas are gone
    const { rows: schemas } = await db.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'verify_%'`);
    expect(schemas).toEqual([]);

    const progress: number[] = [];
    const rebuilt = await rebuildProjection(store, db, projector, { onProgress: (p) => progress.push(p.done), batchSize: 4 });
    expect(rebuilt.events).toBe(await store.countAfter(null));
    expect(progress.length).toBeGreaterThan(1);
    expect(await catalog(db, projector.name, prefix)).toEqual(before);
    const { rows: allAfter } = await db.query(`SELECT * FROM ${projector.name} ORDER BY stream_id`);
    expect(allAfter).toEqual(allBefore);
    expect((await readCheckpoint(db, projector.name)).rebuiltAt).toBeInstanceOf(Date);
    expect((await verifyProjection(store, db, projector)).differences).toEqual([]);
  });

  it('a rebuild whose swap meets a reader in a deadlock (the reader holds a live table, then wants the checkpoint row) rolls back, tries again, and swaps once the reader is done (0004 addendum 2026-11-30)', async () => {
    if (kind !== 'postgres') return; // one connection on the embedded store: no second reader can hold a lock
    const { projector, prefix, before } = await projected('lk', 3, 2);
    const reader = new Client({ connectionString: opened.env.DATABASE_URL });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query(`SELECT count(*) FROM ${projector.name}`); // ACCESS SHARE on the live table until COMMIT
      const rebuilding = rebuildProjection(store, db, projector, { swapLockTimeoutMs: 300 });
      // the swap holds the checkpoint row and waits for the reader's table lock (seen from another connection: a transaction keeps one snapshot of pg_stat_activity)
      const deadline = Date.now() + 10_000;
      for (;;) {
        const { rows } = await db.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'ALTER TABLE%SET SCHEMA%' AND datname = current_database()`);
        if (rows.length > 0) break;
        if (Date.now() > deadline) throw new Error('the swap never waited for the reader');
        await new Promise((r) => setTimeout(r, 20));
      }
      // the reader now wants the row the swap holds: a deadlock, unless the swap gives up first
      await reader.query(`UPDATE projection_checkpoints SET updated_at = now() WHERE name = $1`, [projector.name]);
      await reader.query('COMMIT');
      const rebuilt = await rebuilding;
      expect(rebuilt.events).toBe(await store.countAfter(null));
      expect(await catalog(db, projector.name, prefix)).toEqual(before);
      expect((await verifyProjection(store, db, projector)).differences).toEqual([]);
      const { rows: schemas } = await db.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rebuild_%'`);
      expect(schemas).toEqual([]);
    } finally {
      await reader.end();
    }
  });

  it('a runner whose tables a rebuild swapped in at its own position announces every scope changed at its next batch (read caches let go)', async () => {
    const base = catalogNamed(`catalog_${randomUUID().slice(0, 6)}`);
    const projector: Projector = { ...base, handle: async (events, tx) => (await base.handle(events, tx), { scopes: ['some_scope'] }) };
    const prefix = `swap${randomUUID().slice(0, 6)}`;
    const runner = new ProjectionRunner(store, db, [projector]);
    const announced: (readonly string[] | null)[] = [];
    runner.onChanged((name, scopes) => name === projector.name && announced.push(scopes));
    await runner.start();
    try {
      expect(await runner.waitFor(await appendMany(store, prefix, 1, 1))).toBe(true);
      await rebuildProjection(store, db, projector); // the runner is idle: its checkpoint keeps its position
      announced.length = 0;
      expect(await runner.waitFor(await appendMany(store, `${prefix}-x`, 1, 1))).toBe(true);
      expect(announced).toContain(null);
      announced.length = 0;
      expect(await runner.waitFor(await appendMany(store, `${prefix}-y`, 1, 1))).toBe(true);
      expect(announced).toEqual([['some_scope']]); // once seen, batches say their scopes again
    } finally {
      await runner.stop();
    }
  });

  it('a rebuild goes on after the batches a live runner applies meanwhile (the same compare-and-set), instead of failing', async () => {
    // the rebuild replays into scratch tables while the live tables stay in place: a live runner
    // that applies batches meanwhile moves the position the scratch tables must reach before the
    // swap, and one that applies a batch after the swap is followed, never applied twice
    const { projector, prefix } = await projected('race', 3, 3);
    const behind = await appendMany(store, `${prefix}-a`, 2, 2); // not projected yet
    let reads = 0;
    let swappedAt: LogPosition | null = null;
    const racing = Object.create(store) as EventStore;
    racing.readAll = async (options) => {
      if (++reads === 2) {
        // while the rebuild replays: the live runner applies what it was behind on, then more is appended
        const from = (await readCheckpoint(db, projector.name)).position;
        // the log's visible head can trail `behind` while another suite's transaction is open: read until it shows
        let caughtUp = await store.readAll({ after: from });
        for (const deadline = Date.now() + 10_000; comparePositions(caughtUp[caughtUp.length - 1]?.position ?? from!, behind) < 0 && Date.now() < deadline; ) {
          await new Promise((r) => setTimeout(r, 20));
          caughtUp = await store.readAll({ after: from });
        }
        await applyBatch(db, projector, from, caughtUp);
        expect(comparePositions((await readCheckpoint(db, projector.name)).position!, behind)).toBe(0);
        swappedAt = behind;
        const appended = await appendMany(store, `${prefix}-b`, 1, 3);
        for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
          const shown = await store.readAll({ after: behind });
          if (shown.length > 0 && comparePositions(shown[shown.length - 1].position, appended) >= 0) break; // visible to the rebuild's reads
        }
      }
      const page = await store.readAll(options);
      // after the swap: the live runner applies the first page of the rest before the rebuild does
      if (swappedAt !== null && options?.after && comparePositions(options.after, swappedAt) === 0 && page.length > 0) {
        swappedAt = null;
        await applyBatch(db, projector, options.after, page);
      }
      return page;
    };
    const rebuilt = await rebuildProjection(racing, db, projector, { batchSize: 4 });
    const total = await store.countAfter(null);
    expect(rebuilt.events).toBe(total - 3); // the page the live runner applied after the swap is not counted
    expect(swappedAt).toBeNull(); // that race did happen
    expect((await readCheckpoint(db, projector.name)).events).toBe(total); // every event counted once
    const rows = await catalog(db, projector.name, prefix);
    expect(rows.reduce((n, r) => n + r.events, 0)).toBe(9 + 4 + 3);
    expect((await verifyProjection(store, db, projector)).differences).toEqual([]);
  });
});

// The embedded store has one connection, so only PostgreSQL can hold the horizon from outside.
describe('projection lag on postgres', () => {
  const opened = storePerSuite('postgres', 'lag');
  let store: EventStore;
  let db: Database;
  beforeAll(() => ({ store, db } = opened));

  it('counts as lag what an open transaction in another database still hides from ordered reads', async () => {
    const projector = streamCatalog(`catalog_${randomUUID().slice(0, 6)}`);
    const prefix = `held${randomUUID().slice(0, 6)}`;
    const head = await appendMany(store, prefix, 1, 2);
    const runner = new ProjectionRunner(store, db, [projector]);
    await runner.start();
    expect(await runner.waitFor(head)).toBe(true);
    await runner.stop();

    // a transaction in another database of the cluster holds the visibility horizon (as a parallel test file's or another service's would)
    const other = new Client({ connectionString: TEST_POSTGRES_URL });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT txid_current()');
      await appendMany(store, `${prefix}x`, 2, 1);
      expect(await store.countAfter(head)).toBe(2);
      const [stopped] = await projectionStatus(store, db, [projector]);
      expect(stopped).toMatchObject({ state: 'stopped', lag: 2 });
    } finally {
      await other.query('ROLLBACK');
      await other.end();
    }
  });
});
