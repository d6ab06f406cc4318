import { randomUUID } from 'node:crypto';
import {
  ConcurrencyError,
  DuplicateEventIdError,
  EventStore,
  LogPosition,
  NewEvent,
  RecordedEvent,
  StreamNotFoundError,
  comparePositions,
} from '@lib/eventstore';
import { settledHead } from '../support/log-head';

/**
 * The behaviour every event store adapter must show. Each adapter's spec file calls this
 * with a factory; the store is shared by the tests of one suite, so every test writes to
 * streams of its own and subscribes from the head it found when it started.
 */
export function eventStoreContract(open: () => Promise<{ store: EventStore; close(): Promise<void> }>): void {
  let store: EventStore;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await open());
  });
  afterAll(async () => {
    await close?.();
  });

  const streamName = (label: string) => `test-${label}-${randomUUID().slice(0, 8)}`;
  const event = (type: string, data: unknown = {}, metadata = {}): NewEvent => ({ id: randomUUID(), type, data, metadata });

  describe('append and read a stream', () => {
    it('appends to a new stream and reads back every field', async () => {
      const stream = streamName('basic');
      const metadata = { correlationId: 'corr-1', causationId: 'cause-1', actor: { kind: 'system', id: null }, requestId: 'req_1' };
      const events = [event('PaymentCreated', { amount: '1000', currency: 'USD' }, metadata), event('PaymentUpdated', { n: 1 })];
      const before = Date.now();
      const result = await store.append(stream, events, 'no_stream');
      expect(result.nextExpectedRevision).toBe(1);

      const read = await store.readStream(stream);
      expect(read.map((e) => [e.id, e.type, e.revision, e.stream])).toEqual([
        [events[0].id, 'PaymentCreated', 0, stream],
        [events[1].id, 'PaymentUpdated', 1, stream],
      ]);
      expect(read[0].data).toEqual({ amount: '1000', currency: 'USD' });
      expect(read[0].metadata).toEqual(metadata);
      expect(read[1].metadata).toEqual({});
      expect(read[0].recordedAt).toBeInstanceOf(Date);
      expect(read[0].recordedAt.getTime()).toBeGreaterThan(before - 60_000);
      expect(comparePositions(read[0].position, read[1].position)).toBeLessThan(0);
      expect(comparePositions(read[1].position, result.position)).toBe(0);
    });

    it('answers an append it wrote with the events as a read gives them back (when the store can tell); a retried append without them', async () => {
      const stream = streamName('recorded');
      const first = await store.append(stream, [event('A', { amount: '1', nested: { list: [1, 'two'] } }, { requestId: 'req_2' })], 'no_stream');
      const more = [event('B', { n: 2 }), event('C', null)];
      const second = await store.append(stream, more, 0);
      const read = await store.readStream(stream);
      if (first.recorded === undefined) return; // EventStoreDB: its append answer holds no recorded times
      expect([...first.recorded, ...second.recorded!]).toEqual(read);
      expect((await store.append(stream, more, 0)).recorded).toBeUndefined(); // found written under the same ids: not this append's
    });

    it('continues a stream at its exact revision and with any', async () => {
      const stream = streamName('continue');
      await store.append(stream, [event('A')], 'no_stream');
      expect((await store.append(stream, [event('B'), event('C')], 0)).nextExpectedRevision).toBe(2);
      expect((await store.append(stream, [event('D')], 'any')).nextExpectedRevision).toBe(3);
      expect((await store.append(streamName('any-new'), [event('E')], 'any')).nextExpectedRevision).toBe(0);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
    });

    it('reads forwards and backwards from a revision with a max count', async () => {
      const stream = streamName('paging');
      // 12 events: revisions past 9 catch an order that compares numbers as text
      await store.append(stream, Array.from({ length: 12 }, (_, i) => event(`E${i}`)), 'no_stream');
      expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      expect((await store.readStream(stream, { fromRevision: 3, maxCount: 4 })).map((e) => e.revision)).toEqual([3, 4, 5, 6]);
      expect((await store.readStream(stream, { fromRevision: 9, maxCount: 2 })).map((e) => e.revision)).toEqual([9, 10]);
      expect((await store.readStream(stream, { direction: 'backwards', maxCount: 3 })).map((e) => e.revision)).toEqual([11, 10, 9]);
      expect((await store.readStream(stream, { direction: 'backwards', fromRevision: 4, maxCount: 2 })).map((e) => e.revision)).toEqual([4, 3]);
      expect(await store.readStream(stream, { fromRevision: 12 })).toEqual([]);
    });

    it('reports a missing stream with StreamNotFoundError', async () => {
      await expect(store.readStream(streamName('missing'))).rejects.toBeInstanceOf(StreamNotFoundError);
      await expect(store.readStream(streamName('missing'), { direction: 'backwards' })).rejects.toBeInstanceOf(StreamNotFoundError);
      await expect(store.readStream(streamName('missing'), { fromRevision: 3 })).rejects.toBeInstanceOf(StreamNotFoundError);
      await expect(store.readStream(streamName('missing'), { direction: 'backwards', fromRevision: 2, maxCount: 1 })).rejects.toBeInstanceOf(StreamNotFoundError);
      // a read that finds nothing in an existing stream is an empty answer, not a missing stream
      const stream = streamName('present');
      await store.append(stream, [event('One'), event('Two')], 'no_stream');
      expect(await store.readStream(stream, { fromRevision: 2 })).toEqual([]);
      expect(await store.readStream(stream, { maxCount: 0 })).toEqual([]);
      expect(await store.readStream(stream, { direction: 'backwards', maxCount: 0 })).toEqual([]);
    });

    it('stores ~100 KB events and non-ASCII text exactly', async () => {
      const stream = streamName('large');
      const text = 'Zahlung für Café — 支付 — دفع — 💸👩🏽‍💻 — e\u0301 — 𝔘𝔫𝔦𝔠𝔬𝔡𝔢';
      const big = { text, blob: 'x€'.repeat(50_000), items: Array.from({ length: 200 }, (_, i) => ({ i, note: text })) };
      expect(JSON.stringify(big).length).toBeGreaterThan(100_000);
      await store.append(stream, [event('Big', big, { actor: { kind: 'person', id: 'p1', name: 'Zoë Ångström' } })], 'no_stream');
      const [read] = await store.readStream(stream);
      expect(read.data).toEqual(big);
      expect(read.metadata.actor).toEqual({ kind: 'person', id: 'p1', name: 'Zoë Ångström' });
      await settledHead(store); // PostgreSQL: another database's open transaction can hide the append from log readers for a moment
      const [fromLog] = (await store.readAll({ after: before(read.position), maxCount: 1 })).filter((e) => e.id === read.id);
      expect(fromLog?.data).toEqual(big);
    });
  });

  describe('optimistic concurrency', () => {
    it('raises ConcurrencyError on a stale revision and writes nothing', async () => {
      const stream = streamName('stale');
      await store.append(stream, [event('A'), event('B')], 'no_stream');
      const stale = store.append(stream, [event('C')], 0);
      await expect(stale).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(stale).rejects.toMatchObject({ stream, expected: 0, actual: 1 });
      await expect(store.append(stream, [event('C')], 'no_stream')).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(store.append(stream, [event('C')], 5)).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(store.append(streamName('absent'), [event('C')], 0)).rejects.toMatchObject({ name: 'ConcurrencyError', actual: 'no_stream' });
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B']);
    });

    it('lets exactly one of two writers with the same expected revision win', async () => {
      const stream = streamName('race');
      await store.append(stream, [event('A')], 'no_stream');
      const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => store.append(stream, [event(`W${i}`)], 0)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results.filter((r) => r.status === 'rejected')) {
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyError);
      }
      expect(await store.readStream(stream)).toHaveLength(2);
    });
  });

  describe('any', () => {
    it('lets concurrent appends with any all land, each once, with gap-free revisions', async () => {
      const stream = streamName('any-race');
      const batches = Array.from({ length: 12 }, (_, i) => [event(`A${i}`), event(`B${i}`)]);
      const results = await Promise.all(batches.map((batch) => store.append(stream, batch, 'any')));
      const read = await store.readStream(stream);
      expect(read.map((e) => e.revision)).toEqual(Array.from({ length: 24 }, (_, i) => i));
      expect(new Set(read.map((e) => e.id))).toEqual(new Set(batches.flat().map((e) => e.id)));
      for (let i = 0; i < read.length; i += 2) expect(read[i + 1].type).toBe(read[i].type.replace('A', 'B')); // a batch stays together
      expect(results.map((r) => r.nextExpectedRevision).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => 2 * i + 1));
    });
  });

  describe('idempotent append', () => {
    it('treats a retried append (same event ids) as a no-op with the original result', async () => {
      const stream = streamName('retry');
      const batch = [event('A'), event('B')];
      const first = await store.append(stream, batch, 'no_stream');
      const retry = await store.append(stream, batch, 'no_stream');
      expect(retry.nextExpectedRevision).toBe(first.nextExpectedRevision);
      expect(comparePositions(retry.position, first.position)).toBe(0);

      const next = [event('C')];
      await store.append(stream, next, 1);
      await store.append(stream, next, 1); // retried after a timeout: the revision is stale now, the ids are not
      await store.append(stream, next, 'any');
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
    });

    it('refuses a batch that reuses some ids of other events', async () => {
      const stream = streamName('dup');
      const a = event('A');
      await store.append(stream, [a], 'no_stream');
      await expect(store.append(stream, [a, event('B')], 'any')).rejects.toBeInstanceOf(DuplicateEventIdError);
      if (store.kind !== 'eventstoredb') {
        // SQL stores keep event ids unique across the whole log; EventStoreDB checks ids per stream only.
        await expect(store.append(streamName('other'), [a], 'any')).rejects.toBeInstanceOf(DuplicateEventIdError);
      }
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    it('refuses invalid input before writing', async () => {
      await expect(store.append(streamName('bad'), [], 'any')).rejects.toThrow(/at least one event/);
      await expect(store.append(streamName('bad'), [{ id: 'not-a-uuid', type: 'A', data: {} }], 'any')).rejects.toThrow(/UUID/);
      const e = event('A');
      await expect(store.append(streamName('bad'), [e, e], 'any')).rejects.toThrow(/twice/);
    });
  });

  describe('global log and subscriptions', () => {
    it('reads the global log after a position in a stable order', async () => {
      const head = await settledHead(store); // PostgreSQL: another database's open transaction can hide the latest appends for a moment
      const s1 = streamName('log1');
      const s2 = streamName('log2');
      await store.append(s1, [event('A1'), event('A2')], 'no_stream');
      await store.append(s2, [event('B1')], 'no_stream');
      await store.append(s1, [event('A3')], 1);
      await settledHead(store);
      const all = await readAllAfter(store, head);
      const mine = all.filter((e) => e.stream === s1 || e.stream === s2);
      expect(mine.map((e) => e.type)).toEqual(['A1', 'A2', 'B1', 'A3']);
      for (let i = 1; i < all.length; i++) expect(comparePositions(all[i - 1].position, all[i].position)).toBeLessThan(0);
      // paging by position gives the same sequence
      const paged: RecordedEvent[] = [];
      let after = head;
      for (;;) {
        const page = await store.readAll({ after, maxCount: 2 });
        if (page.length === 0) break;
        paged.push(...page);
        after = page[page.length - 1].position;
      }
      expect(paged.map((e) => e.id)).toEqual(all.map((e) => e.id));
      expect(comparePositions((await store.headPosition())!, all[all.length - 1].position)).toBe(0);
    });

    it('gives a live subscriber every event of 8 concurrent writers exactly once, in log order, also across a restart', async () => {
      const head = await store.headPosition();
      const prefix = `conc-${randomUUID().slice(0, 6)}`;
      const writers = 8;
      const appendsPerWriter = 25;
      const seen: RecordedEvent[] = [];
      let inHandler = 0;
      let maxInHandler = 0;
      const handler = async (batch: RecordedEvent[]) => {
        inHandler++;
        maxInHandler = Math.max(maxInHandler, inHandler);
        await new Promise((r) => setTimeout(r, 1));
        seen.push(...batch.filter((e) => e.stream.startsWith(prefix)));
        inHandler--;
      };
      let subscription = store.subscribe(handler, { after: head, batchSize: 16 });

      const acknowledged: string[] = [];
      let restarted = false;
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          const stream = `${prefix}-w${w}`;
          let revision: number | 'no_stream' = 'no_stream';
          for (let i = 0; i < appendsPerWriter; i++) {
            const batch = i % 5 === 0 ? [event('Batch'), event('Batch'), event('Batch')] : [event('Single')];
            const result = await store.append(stream, batch, revision);
            revision = result.nextExpectedRevision;
            acknowledged.push(...batch.map((e) => e.id));
            if (w === 0 && i === Math.floor(appendsPerWriter / 2) && !restarted) {
              // restart the subscriber from its checkpoint while writers keep going
              restarted = true;
              await subscription.stop();
              subscription = store.subscribe(handler, { after: subscription.position ?? head, batchSize: 16 });
            }
          }
        }),
      );
      expect(restarted).toBe(true);
      await waitFor(() => seen.length >= acknowledged.length, 20_000);
      await new Promise((r) => setTimeout(r, 300)); // give any duplicate a chance to show up
      await subscription.stop();

      const ids = seen.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length); // exactly once
      expect(new Set(ids)).toEqual(new Set(acknowledged)); // every acknowledged event
      const logOrder = (await readAllAfter(store, head)).filter((e) => e.stream.startsWith(prefix)).map((e) => e.id);
      expect(ids).toEqual(logOrder); // the same order as a later read of the log
      expect(maxInHandler).toBe(1); // one batch at a time
    });

    it('resumes from a checkpoint without repeating or skipping', async () => {
      const head = await store.headPosition();
      const stream = streamName('resume');
      await store.append(stream, Array.from({ length: 20 }, (_, i) => event(`E${i}`)), 'no_stream');
      const firstHalf: RecordedEvent[] = [];
      const sub1 = store.subscribe(
        async (batch) => {
          firstHalf.push(...batch.filter((e) => e.stream === stream));
        },
        { after: head, batchSize: 5 },
      );
      await sub1.caughtUp;
      // caughtUp is the head as the store saw it then: on PostgreSQL the head stops below the
      // oldest transaction still open anywhere on the server (gap-free reading), so with other
      // suites writing alongside it can come before these 20 — wait for them, with a deadline
      await waitFor(() => firstHalf.length >= 20, 10_000);
      await sub1.stop();
      expect(firstHalf.map((e) => e.type)).toEqual(Array.from({ length: 20 }, (_, i) => `E${i}`));
      const checkpoint = sub1.position;
      expect(checkpoint).not.toBeNull();

      await store.append(stream, [event('E20'), event('E21')], 19);
      const secondHalf: RecordedEvent[] = [];
      const sub2 = store.subscribe(async (batch) => void secondHalf.push(...batch.filter((e) => e.stream === stream)), { after: checkpoint });
      await waitFor(() => secondHalf.length >= 2, 10_000);
      await sub2.stop();
      expect(secondHalf.map((e) => e.type)).toEqual(['E20', 'E21']);
    });

    it('ends the subscription when the handler fails, keeping the last finished checkpoint', async () => {
      const head = await store.headPosition();
      const stream = streamName('fail');
      await store.append(stream, [event('ok'), event('boom')], 'no_stream');
      const handled: string[] = [];
      const sub = store.subscribe(
        async (batch) => {
          for (const e of batch.filter((x) => x.stream === stream)) {
            if (e.type === 'boom') throw new Error('handler failed');
            handled.push(e.type);
          }
        },
        { after: head, batchSize: 1 },
      );
      await expect(sub.done).rejects.toThrow('handler failed');
      expect(handled).toEqual(['ok']);
      const [ok] = await store.readStream(stream, { maxCount: 1 });
      expect(comparePositions(sub.position!, ok.position)).toBeGreaterThanOrEqual(0);
    });
  });
}

export async function readAllAfter(store: EventStore, after: LogPosition | null): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for (;;) {
    const page = await store.readAll({ after, maxCount: 1000 });
    if (page.length === 0) return out;
    out.push(...page);
    after = page[page.length - 1].position;
  }
}

/** The position just before p: reading after it starts at p. */
function before(p: LogPosition): LogPosition {
  return p.prepare > 0n ? { commit: p.commit, prepare: p.prepare - 1n } : { commit: p.commit - 1n, prepare: 0n };
}

export async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
