import { randomUUID } from 'node:crypto';
import { Database, Sql } from '@lib/database';
import { EventStore, LogPosition, NewEvent, RecordedEvent, comparePositions } from '@lib/eventstore';
import { ProjectionRunner, Projector, applyBatches, ensureCheckpoint, ensureTables, readCheckpoint, streamCatalog } from '@lib/projections';
import { eventually } from '../support/eventually';
import { settledHead } from '../support/log-head';
import { STORE_KINDS, storePerSuite } from '../support/fixtures';

const event = (type: string): NewEvent => ({ id: randomUUID(), type, data: {} });

async function appendMany(store: EventStore, prefix: string, streams: number, perStream: number): Promise<LogPosition> {
  let last: LogPosition | null = null;
  for (let s = 0; s < streams; s++) last = (await store.append(`${prefix}-${s}`, Array.from({ length: perStream }, (_, i) => event(`T${i}`)), 'no_stream')).position;
  return last!;
}

/** Events per stream of `prefix` in a stream-catalog table. */
async function counts(db: Database, table: string, prefix: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ stream_id: string; events: string }>(`SELECT stream_id, events::text FROM ${table} WHERE stream_id LIKE $1 ORDER BY stream_id`, [`${prefix}-%`]);
  return Object.fromEntries(rows.map((r) => [r.stream_id, Number(r.events)]));
}

const expected = (prefix: string, streams: number, perStream: number) => Object.fromEntries(Array.from({ length: streams }, (_, s) => [`${prefix}-${s}`, perStream]));

/** A stream-catalog projector that records the transaction each batch came in. */
function recording(name: string, seen: Sql[]): Projector {
  const inner = streamCatalog(name);
  return { ...inner, handle: async (events: RecordedEvent[], tx: Sql) => (seen.push(tx), inner.handle(events, tx)) };
}

describe.each(STORE_KINDS)('projection runner: every projector on one subscription (%s)', (kind) => {
  const opened = storePerSuite(kind, 'pgroup');
  let store: EventStore;
  let db: Database;
  beforeAll(() => ({ store, db } = opened));

  const named = (label: string) => `${label}_${randomUUID().slice(0, 6)}`;

  it('applies a batch to every projector in one transaction and moves all their checkpoints with it', async () => {
    const seenA: Sql[] = [];
    const seenB: Sql[] = [];
    const [a, b] = [recording(named('ga'), seenA), recording(named('gb'), seenB)];
    const prefix = named('one');
    const runner = new ProjectionRunner(store, db, [a, b]);
    await runner.start();
    const last = await appendMany(store, prefix, 3, 2);
    expect(await runner.waitFor(last)).toBe(true);
    await runner.stop();
    // the same transaction object reached both projectors, batch by batch
    expect(seenA.length).toBeGreaterThan(0);
    expect(seenA).toEqual(seenB);
    seenA.forEach((tx, i) => expect(tx).toBe(seenB[i]));
    expect(await counts(db, a.name, prefix)).toEqual(expected(prefix, 3, 2));
    expect(await counts(db, b.name, prefix)).toEqual(expected(prefix, 3, 2));
    for (const p of [a, b]) expect(comparePositions((await readCheckpoint(db, p.name)).position!, last)).toBeGreaterThanOrEqual(0);
  });

  it('runs the projectors of a batch side by side on the transaction, and a failing statement is reported as itself, with nothing applied', async () => {
    const prefix = named('sbs');
    const order: string[] = [];
    const slow = (name: string): Projector => {
      const inner = streamCatalog(name);
      const handle = async (events: RecordedEvent[], tx: Sql) => {
        order.push(`${name} start`);
        await inner.handle(events, tx);
        order.push(`${name} end`);
      };
      return { ...inner, handle };
    };
    const [a, b] = [slow(named('sa')), slow(named('sb'))];
    await appendMany(store, prefix, 2, 1);
    await settledHead(store); // PostgreSQL: another database's open transaction can hide the appends from log readers for a moment
    const events = (await store.readAll({ maxCount: 100_000 })).filter((e) => e.stream.startsWith(`${prefix}-`));
    expect(events).toHaveLength(2);
    for (const p of [a, b]) {
      await db.transaction((tx) => ensureTables(tx, p));
      await ensureCheckpoint(db, p.name);
    }
    await applyBatches(db, [
      { projector: a, from: null, events },
      { projector: b, from: null, events },
    ]);
    expect(order.slice(0, 2).every((o) => o.endsWith('start'))).toBe(true); // the second began before the first ended
    expect(await counts(db, a.name, prefix)).toEqual(expected(prefix, 2, 1));

    const broken: Projector = { ...streamCatalog(named('sc')), handle: async (_events, tx) => void (await tx.query(`SELECT * FROM no_such_table_${kind}`)) };
    const c = slow(named('sd'));
    for (const p of [broken, c]) {
      await db.transaction((tx) => ensureTables(tx, p));
      await ensureCheckpoint(db, p.name);
    }
    const failed = applyBatches(db, [
      { projector: c, from: null, events },
      { projector: broken, from: null, events },
    ]);
    await expect(failed).rejects.toMatchObject({ code: '42P01' }); // the cause, not "current transaction is aborted" (25P02)
    expect(await counts(db, c.name, prefix)).toEqual({}); // one transaction: the other's rows were rolled back
    expect((await readCheckpoint(db, c.name)).position).toBeNull();
  });

  it('a projector that fails leaves the group and retries alone; the others keep up, nothing is applied twice', async () => {
    const prefix = named('flk');
    const healthy = streamCatalog(named('ok'));
    let broken = true;
    const failingName = named('bad');
    const failing: Projector = {
      ...streamCatalog(failingName),
      async handle(events, tx) {
        await streamCatalog(failingName).handle(events, tx); // rows written, then the failure: the transaction must undo them
        if (broken && events.some((e) => e.stream.startsWith(`${prefix}-`))) throw new Error('projector bug');
      },
    };
    const errors: string[] = [];
    const runner = new ProjectionRunner(store, db, [healthy, failing], { batchSize: 4, onError: (name, e) => errors.push(`${name}: ${(e as Error).message}`) });
    await runner.start();
    const last = await appendMany(store, prefix, 4, 3);

    // the healthy projector reaches the end while the other one keeps failing
    await eventually(() => counts(db, healthy.name, prefix), (rows) => JSON.stringify(rows) === JSON.stringify(expected(prefix, 4, 3)), { what: 'the healthy projector caught up' });
    expect(await runner.waitFor(last, 200)).toBe(false);
    const status = await runner.status();
    expect(status.find((s) => s.name === healthy.name)).toMatchObject({ state: 'running', lastError: null });
    const explained = `projection ${failing.name} failed on `; // …the batch's events and positions, then the projector's own error
    expect(status.find((s) => s.name === failing.name)).toMatchObject({ state: 'retrying', lastError: expect.stringMatching(new RegExp(`^${explained}.*: projector bug$`)) });
    expect(errors.some((e) => e.startsWith(`${failing.name}: ${explained}`) && e.endsWith(': projector bug'))).toBe(true);

    broken = false; // fixed: it catches up from its own checkpoint
    expect(await runner.waitFor(last, 20_000)).toBe(true);
    await runner.stop();
    expect(await counts(db, failing.name, prefix)).toEqual(expected(prefix, 4, 3));
    expect(await counts(db, healthy.name, prefix)).toEqual(expected(prefix, 4, 3));
  });

  it('projectors at different checkpoints each take only the events after their own', async () => {
    const prefix = named('lag');
    const ahead = streamCatalog(named('ahead'));
    const first = await appendMany(store, `${prefix}a`, 2, 2);
    const alone = new ProjectionRunner(store, db, [ahead]);
    await alone.start();
    expect(await alone.waitFor(first)).toBe(true);
    await alone.stop();

    const behind = streamCatalog(named('behind')); // never ran: from the start of the log
    const last = await appendMany(store, `${prefix}b`, 2, 3);
    const runner = new ProjectionRunner(store, db, [ahead, behind], { batchSize: 3 });
    await runner.start();
    expect(await runner.waitFor(last, 15_000)).toBe(true);
    await runner.stop();
    for (const p of [ahead, behind]) {
      expect(await counts(db, p.name, `${prefix}a`)).toEqual(expected(`${prefix}a`, 2, 2));
      expect(await counts(db, p.name, `${prefix}b`)).toEqual(expected(`${prefix}b`, 2, 3));
    }
  });

  it('notes writes answered before the projections had them: only where it applies them, and reads of that scope wait for them', async () => {
    const catalog = streamCatalog(named('rw'));
    const prefix = named('rw');
    const apiOnly = new ProjectionRunner(store, db, [catalog]); // never started: it cannot promise anything
    const first = await appendMany(store, prefix, 1, 1);
    expect(apiOnly.noteWrite('biz_a', first)).toBe(false);
    expect(apiOnly.hasUnseenWrites('biz_a')).toBe(false);

    const runner = new ProjectionRunner(store, db, [catalog]);
    await runner.start();
    expect(await runner.waitFor(first)).toBe(true);
    const last = (await store.append(`${prefix}-late`, [event('T0')], 'no_stream')).position;
    expect(runner.noteWrite('biz_a', last)).toBe(true);
    await runner.readBarrier('biz_a');
    // after the barrier the projection has the write, and nothing is left to wait for
    expect(await counts(db, catalog.name, prefix)).toEqual({ [`${prefix}-0`]: 1, [`${prefix}-late`]: 1 });
    expect(runner.hasUnseenWrites('biz_a')).toBe(false);
    expect(runner.hasUnseenWrites(null)).toBe(false);
    expect(runner.hasUnseenWrites('biz_b')).toBe(false);
    await runner.stop();
  });

  it('a read barrier that times out (a projector failing) lets the read go on and forgets the write', async () => {
    const prefix = named('stuck');
    const name = named('stuck');
    const stuck: Projector = {
      ...streamCatalog(name),
      async handle(events, tx) {
        if (events.some((e) => e.stream.startsWith(`${prefix}-`))) throw new Error('cannot project this');
        await streamCatalog(name).handle(events, tx);
      },
    };
    const runner = new ProjectionRunner(store, db, [stuck], { onError: () => undefined });
    await runner.start();
    const position = (await store.append(`${prefix}-0`, [event('T0')], 'no_stream')).position;
    expect(runner.noteWrite('biz_stuck', position)).toBe(true);
    await runner.readBarrier('biz_stuck', 200); // resolves (the read is served, possibly stale) instead of hanging
    expect(runner.hasUnseenWrites('biz_stuck')).toBe(false);
    expect(runner.hasUnseenWrites(null)).toBe(true); // public reads still wait once for it
    await runner.readBarrier(null, 200);
    expect(runner.hasUnseenWrites(null)).toBe(false);
    await runner.stop();
  });
});
