import { randomUUID } from 'node:crypto';
import { NewEvent, RecordedEvent, SqlEventStore } from '@lib/eventstore';
import { RecentLog, inJsonbOrder } from '../../libs/eventstore/src/sql/recent-log';
import { storePerSuite } from '../support/fixtures';

const at = (commit: number, prepare: number) => ({ commit: BigInt(commit), prepare: BigInt(prepare) });
const recorded = (stream: string, revision: number, commit: number, prepare: number, data: unknown = {}): RecordedEvent => ({
  id: randomUUID(),
  type: 'T',
  data,
  metadata: {},
  stream,
  revision,
  position: at(commit, prepare),
  recordedAt: new Date(),
});

describe('RecentLog: the embedded store’s newest events (given appends, when a subscriber or a stream read asks)', () => {
  it('answers what follows a kept position, up to the count, and nothing for a position it does not keep', () => {
    const log = new RecentLog(10);
    log.add([recorded('a', 0, 5, 1), recorded('a', 1, 5, 2)]);
    log.add([recorded('b', 0, 6, 3)]);
    expect(log.after(at(5, 1), 10)!.map((e) => e.stream + e.revision)).toEqual(['a1', 'b0']);
    expect(log.after(at(5, 1), 1)!.map((e) => e.stream + e.revision)).toEqual(['a1']);
    expect(log.after(at(6, 3), 10)).toEqual([]); // the newest: nothing after it, and no need to ask the database
    expect(log.after(at(4, 9), 10)).toBeNull(); // appended before the window: the database answers
    expect(log.after(null, 10)).toBeNull();
  });

  it('answers a stream only while its first event is kept, and forgets positions that leave the window', () => {
    const log = new RecentLog(3);
    log.add([recorded('a', 0, 1, 1), recorded('a', 1, 1, 2)]);
    log.add([recorded('old', 7, 2, 3)]); // a stream begun before the window
    expect(log.stream('a')!.map((e) => e.revision)).toEqual([0, 1]);
    expect(log.stream('old')).toBeNull();
    log.add([recorded('a', 2, 3, 4)]); // the window drops a's first event
    expect(log.stream('a')).toBeNull();
    expect(log.after(at(1, 1), 10)).toBeNull();
    expect(log.after(at(1, 2), 10)!.map((e) => e.stream + e.revision)).toEqual(['old7', 'a2']);
  });

  it('trusts nothing it kept once an event arrives out of log order', () => {
    const log = new RecentLog(10);
    log.add([recorded('a', 0, 5, 5)]);
    log.add([recorded('b', 0, 4, 4)]);
    expect(log.after(at(5, 5), 10)).toBeNull();
    expect(log.stream('a')).toBeNull();
    expect(log.after(at(4, 4), 10)).toEqual([]);
  });

  it('orders every object’s keys as jsonb does (shorter first, then by UTF-8 bytes), arrays kept in order', () => {
    const ordered = inJsonbOrder({ zz: 1, b: { yy: [{ d: 1, ccc: 2, a: 3 }], x: null }, é: 2, aaa: 3, '10': 4, '9': 5 });
    expect(JSON.stringify(ordered)).toBe('{"9":5,"10":4,"b":{"x":null,"yy":[{"a":3,"d":1,"ccc":2}]},"zz":1,"é":2,"aaa":3}');
  });
});

describe('embedded store: subscriptions and stream reads served from the recent log', () => {
  const opened = storePerSuite('embedded', 'recent');
  const event = (type: string, data: unknown, metadata: Record<string, unknown> = {}): NewEvent => ({ id: randomUUID(), type, data, metadata });

  it('gives a subscriber and a stream reader exactly what a read of the log gives, to the key order of the JSON, without reading the log', async () => {
    const store = opened.store as SqlEventStore;
    await store.append(`recent-before-${randomUUID().slice(0, 8)}`, [event('Before', {})], 'no_stream'); // this process's: the window holds the subscriber's start
    const head = await store.headPosition();
    const stream = `recent-${randomUUID().slice(0, 8)}`;
    const data = { zeta: 1, alpha: { nested: true, b: [3, { y: 1, x: 2 }] }, 'Ünïcode': 'ok', '10': 'ten', '2': 'two' };
    const metadata = { requestId: 'req_1', actor: { name: 'Zoë', kind: 'person', id: 'p1' } };

    let logReads = 0;
    const query = store.db.query.bind(store.db);
    store.db.query = ((text: string, params?: unknown[], name?: string) => {
      if (/^\s*SELECT\b[\s\S]*FROM es_events/.test(text)) logReads++; // a read, not an append
      return query(text, params, name);
    }) as typeof store.db.query;
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribe(async (batch) => void seen.push(...batch.filter((e) => e.stream === stream)), { after: head, batchSize: 10 });
    try {
      await store.append(stream, [event('First', data, metadata)], 'no_stream');
      await store.append(stream, [event('Second', { b: 2, a: 1 }), event('Third', null)], 0);
      const deadline = Date.now() + 10_000;
      while (seen.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      const fromStream = await store.readStream(stream);
      const backwards = await store.readStream(stream, { direction: 'backwards', maxCount: 2 });
      expect(logReads).toBe(0); // neither the subscriber nor the stream reader read the log
      store.db.query = query;

      const fromLog = (await store.readAll({ after: head, maxCount: 1000 })).filter((e) => e.stream === stream);
      expect(fromLog).toHaveLength(3);
      const asText = (events: RecordedEvent[]) => events.map((e) => JSON.stringify({ ...e, position: `${e.position.commit}/${e.position.prepare}` }));
      expect(asText(seen)).toEqual(asText(fromLog));
      expect(asText(fromStream)).toEqual(asText(fromLog));
      expect(asText(backwards)).toEqual(asText([fromLog[2], fromLog[1]]));
      expect(Object.isFrozen(seen[0].data)).toBe(true); // shared by every subscriber of the process
    } finally {
      store.db.query = query;
      await subscription.stop();
    }
  });
});
