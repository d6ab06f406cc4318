import { randomUUID } from 'node:crypto';
import { LogPosition, NewEvent, RecordedEvent, SqlEventStore, comparePositions } from '@lib/eventstore';
import { ReadWindow } from '../../libs/eventstore/src/sql/read-window';
import { storePerSuite } from '../support/fixtures';

const at = (commit: number, prepare: number) => ({ commit: BigInt(commit), prepare: BigInt(prepare) });
const recorded = (commit: number, prepare: number): RecordedEvent => ({
  id: randomUUID(),
  type: 'T',
  data: { n: prepare },
  metadata: {},
  stream: `s-${prepare}`,
  revision: 0,
  position: at(commit, prepare),
  recordedAt: new Date(),
});
const names = (events: RecordedEvent[] | null) => events?.map((e) => Number(e.position.prepare)) ?? null;

describe('ReadWindow: PostgreSQL’s shared stretch of the log (given subscription reads, when a subscription asks)', () => {
  it('answers a position inside what was read, and leaves the window’s end and what it never read to the database', () => {
    const window = new ReadWindow(10);
    window.read(at(1, 1), [recorded(2, 2), recorded(2, 3), recorded(4, 4)]);
    expect(names(window.after(at(1, 1), 10))).toEqual([2, 3, 4]); // the read's own start
    expect(names(window.after(at(2, 2), 1))).toEqual([3]);
    expect(window.after(at(4, 4), 10)).toBeNull(); // the end: newer events may be visible by now
    expect(window.after(at(0, 9), 10)).toBeNull(); // before the window
    expect(window.after(null, 10)).toBeNull();
  });

  it('grows with a read from its end or from inside it, and starts again at a read past it', () => {
    const window = new ReadWindow(10);
    window.read(null, [recorded(1, 1), recorded(1, 2)]);
    window.read(at(1, 2), [recorded(3, 3)]); // from the end
    window.read(at(1, 1), [recorded(1, 2), recorded(3, 3), recorded(3, 4)]); // from inside, past the end
    expect(names(window.after(null, 10))).toEqual([1, 2, 3, 4]);
    window.read(at(0, 0), [recorded(1, 1)]); // an older run: left alone
    expect(names(window.after(null, 10))).toEqual([1, 2, 3, 4]);
    window.read(at(7, 7), [recorded(8, 8)]); // a subscription ahead of the window: it starts there
    expect(window.after(null, 10)).toBeNull();
    expect(window.after(at(3, 4), 10)).toBeNull(); // nothing is known between 4 and 7
    expect(names(window.after(at(7, 7), 10))).toEqual([8]);
  });

  it('keeps at most its capacity: the last event dropped becomes its start', () => {
    const window = new ReadWindow(3);
    window.read(null, [recorded(1, 1), recorded(1, 2), recorded(1, 3)]);
    window.read(at(1, 3), [recorded(2, 4), recorded(2, 5)]);
    expect(window.after(null, 10)).toBeNull();
    expect(window.after(at(1, 1), 10)).toBeNull();
    expect(names(window.after(at(1, 2), 10))).toEqual([3, 4, 5]);
    expect(Object.isFrozen(window.after(at(1, 2), 1)![0].data)).toBe(true); // shared by every subscription of the process
  });
});

describe('postgres store: subscriptions that follow one another read each stretch of the log once', () => {
  const opened = storePerSuite('postgres', 'window');
  const event = (type: string, data: unknown): NewEvent => ({ id: randomUUID(), type, data, metadata: { actor: { name: 'Zoë', kind: 'person', id: 'p1' } } });

  it('gives a second subscriber what the first read, byte for byte as a read of the log, without reading it again', async () => {
    const store = opened.store as SqlEventStore;
    const head = await store.headPosition();
    const stream = `window-${randomUUID().slice(0, 8)}`;
    for (let i = 0; i < 5; i++) await store.append(stream, [event(`E${i}`, { zeta: i, alpha: { b: [i, { y: 1, x: 2 }] } })], i === 0 ? 'no_stream' : i - 1);
    const settled = async () => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const all = await store.readAll({ after: head, maxCount: 100 });
        if (all.filter((e) => e.stream === stream).length === 5) return all;
        await new Promise((resolve) => setTimeout(resolve, 10)); // another database's open transaction can hide them for a moment
      }
      throw new Error('the appends never became visible');
    };
    const fromLog = (await settled()).filter((e) => e.stream === stream);

    const follow = async (): Promise<RecordedEvent[]> => {
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribe(async (batch) => void seen.push(...batch.filter((e) => e.stream === stream)), { after: head, batchSize: 2 });
      try {
        const deadline = Date.now() + 10_000;
        while (seen.length < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      } finally {
        await subscription.stop();
      }
      return seen;
    };
    const first = await follow(); // reads the log in pages of two: the window keeps them
    const readsAfter: LogPosition[] = []; // where each read of the log began
    const query = store.db.query.bind(store.db);
    store.db.query = ((text: string, params?: unknown[], name?: string) => {
      if (name === 'es_read_all') readsAfter.push({ commit: BigInt(params![0] as string), prepare: BigInt(params![1] as string) });
      return query(text, params, name);
    }) as typeof store.db.query;
    try {
      const second = await follow();
      const asText = (events: RecordedEvent[]) => events.map((e) => JSON.stringify({ ...e, position: `${e.position.commit}/${e.position.prepare}` }));
      expect(asText(first)).toEqual(asText(fromLog));
      expect(asText(second)).toEqual(asText(fromLog));
      // the second subscriber read the log only past the window's end (the empty reads of a
      // subscription waiting at the end; how many depends on the timing, where they start does not)
      const end = fromLog[fromLog.length - 1].position;
      expect(readsAfter.filter((after) => comparePositions(after, end) < 0)).toEqual([]);
      expect(Object.isFrozen(second[0].data)).toBe(true);
    } finally {
      store.db.query = query;
    }
  });

  it('does not cut a page at the window’s end: what it holds, then the log past it', async () => {
    const store = opened.store as SqlEventStore;
    const head = await store.headPosition();
    const stream = `window-${randomUUID().slice(0, 8)}`;
    const visible = async (count: number) => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        if ((await store.readAll({ after: head, maxCount: 100 })).filter((e) => e.stream === stream).length === count) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error('the appends never became visible');
    };
    const firstBatch = async (): Promise<RecordedEvent[]> => {
      let batch: RecordedEvent[] | null = null;
      const subscription = store.subscribe(async (events) => void (batch ??= events.filter((e) => e.stream === stream)), { after: head, batchSize: 50 });
      const deadline = Date.now() + 10_000;
      while (batch === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      await subscription.stop();
      return batch ?? [];
    };
    await store.append(stream, [event('A', {}), event('B', {})], 'no_stream');
    await visible(2);
    expect((await firstBatch()).map((e) => e.type)).toEqual(['A', 'B']); // the window now ends at B
    await store.append(stream, [event('C', {}), event('D', {})], 1);
    await visible(4);
    // from the same start: A and B from the window, C and D from the log, in one batch
    expect((await firstBatch()).map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
  });
});
