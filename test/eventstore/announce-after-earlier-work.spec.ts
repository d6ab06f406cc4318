import { randomUUID } from 'node:crypto';
import { Database, PostgresDatabase } from '@lib/database';
import { RecordedEvent, SqlEventStore } from '@lib/eventstore';
import { eventually } from '../support/eventually';
import { storePerSuite } from '../support/fixtures';

/** A transaction that took a transaction id (it wrote) and stays open until `end()`. */
async function heldTransaction(db: Database, table: string): Promise<{ end(): Promise<void>; ended: Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let began!: () => void;
  const begun = new Promise<void>((resolve) => (began = resolve));
  const ended = db.transaction(async (tx) => {
    await tx.query(`INSERT INTO ${table} VALUES (1)`);
    began();
    await released;
  });
  await begun;
  return { end: async () => (release(), await ended), ended };
}

describe('postgres store: an append is announced once the work this process began before it has ended', () => {
  const opened = storePerSuite('postgres', 'announce');
  const table = `held_${randomUUID().slice(0, 8)}`;
  beforeAll(async () => void (await opened.db.query(`CREATE TABLE ${table} (n int)`)));

  it('earlierWorkDone waits for the transactions and statements in flight when called, not for later ones, and at most its limit', async () => {
    const db = opened.db as PostgresDatabase;
    expect(db.kind).toBe('postgres');
    const held = await heldTransaction(db, table);
    let done = false;
    const waited = db.earlierWorkDone(30_000).then(() => void (done = true));
    const later = await heldTransaction(db, table); // begun after the call: not waited for
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toBe(false);
    await held.end();
    await waited;
    expect(done).toBe(true);
    const started = Date.now();
    await db.earlierWorkDone(30); // only `later` is in flight, and it never ends before the limit
    expect(Date.now() - started).toBeLessThan(5_000);
    await later.end();
  });

  it('a subscription woken by an append reads only after the transaction begun before it has ended (it would find nothing before)', async () => {
    // no polling: the append's signal is the only thing that wakes the subscription
    const store = new SqlEventStore(opened.db, { pollIntervalMs: 600_000, announceWaitLimitMs: 30_000 });
    const head = await store.headPosition();
    const stream = `announce-${randomUUID().slice(0, 8)}`;
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribe(async (batch) => void seen.push(...batch.filter((e) => e.stream === stream)), { after: head });
    await subscription.caughtUp;
    const reads: number[] = []; // when each read of the log began
    const query = opened.db.query.bind(opened.db);
    opened.db.query = ((text: string, params?: unknown[], name?: string) => {
      if (name === 'es_read_all') reads.push(Date.now());
      return query(text, params, name);
    }) as typeof opened.db.query;
    try {
      const held = await heldTransaction(opened.db, table); // its transaction id is below the append's: it hides the append from log readers
      await store.append(stream, [{ id: randomUUID(), type: 'Appended', data: {} }], 'no_stream');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const endedAt = Date.now();
      await held.end();
      await eventually(() => seen.length === 1, { what: 'the subscription saw the append' });
      expect(reads.filter((at) => at < endedAt)).toEqual([]); // no read while the append was hidden
    } finally {
      opened.db.query = query;
      await subscription.stop();
    }
  });
});
