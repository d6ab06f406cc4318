import { randomUUID } from 'node:crypto';
import { Decider } from '@lib/domain';
import { CommandRunner, ConcurrencyError, EventStore, LogPosition, comparePositions } from '@lib/eventstore';
import { storePerSuite } from '../support/fixtures';

/** A counter: the smallest decider with a refusal, a no-op and several events from one command. */
type CounterEvent = { type: 'Added'; data: { by: number } } | { type: 'Reset'; data: Record<string, never> };
type CounterCommand = { type: 'Add'; by: number } | { type: 'AddTwice'; by: number } | { type: 'Reset' };
type CounterState = { total: number; events: number };

const counter: Decider<CounterCommand, CounterEvent, CounterState, { max: number }> = {
  initialState: { total: 0, events: 0 },
  decide(command, state, context) {
    switch (command.type) {
      case 'Add':
        if (state.total + command.by > context.max) throw new Error('over the maximum');
        return command.by === 0 ? [] : [{ type: 'Added', data: { by: command.by } }];
      case 'AddTwice':
        return [{ type: 'Added', data: { by: command.by } }, { type: 'Added', data: { by: command.by } }];
      case 'Reset':
        return state.total === 0 ? [] : [{ type: 'Reset', data: {} }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'Added':
        return { total: state.total + event.data.by, events: state.events + 1 };
      case 'Reset':
        return { total: 0, events: state.events + 1 };
    }
  },
};

describe('CommandRunner: load, fold, decide, append at the revision read', () => {
  const opened = storePerSuite('embedded');
  let streams = 0;
  const stream = () => `counter-${++streams}`;
  const context = { max: 100 };


  it('folds the stream, appends the decision with the metadata, and answers the states and position', async () => {
    const runner = new CommandRunner(opened.store);
    const s = stream();
    await runner.run(counter, s, { type: 'Add', by: 5 }, { context });
    const result = await runner.run(counter, s, { type: 'AddTwice', by: 2 }, { context, metadata: { requestId: 'req_1' } });
    expect(result.before).toEqual({ total: 5, events: 1 });
    expect(result.state).toEqual({ total: 9, events: 3 });
    expect(result.appended.map((a) => [a.event.type, a.before.total, a.after.total])).toEqual([
      ['Added', 5, 7],
      ['Added', 7, 9],
    ]);
    expect(result.revision).toBe(2);
    const stored = await opened.store.readStream(s);
    expect(stored.map((e) => [e.type, e.metadata.requestId])).toEqual([
      ['Added', undefined],
      ['Added', 'req_1'],
      ['Added', 'req_1'],
    ]);
    expect(comparePositions(result.position!, stored[2].position)).toBe(0);
  });

  it('a command that changes nothing appends nothing and has no position; a refusal throws and appends nothing', async () => {
    const runner = new CommandRunner(opened.store);
    const s = stream();
    expect(await runner.run(counter, s, { type: 'Reset' }, { context })).toMatchObject({ appended: [], position: null, revision: null });
    await runner.run(counter, s, { type: 'Add', by: 99 }, { context });
    await expect(runner.run(counter, s, { type: 'Add', by: 2 }, { context })).rejects.toThrow('over the maximum');
    expect((await opened.store.readStream(s)).length).toBe(1);
  });

  it('state: the stream read and folded now (none yet: the initial state), what another writer appended included', async () => {
    const runner = new CommandRunner(opened.store);
    const s = stream();
    expect(await runner.state(counter, s)).toEqual({ total: 0, events: 0 });
    await runner.run(counter, s, { type: 'AddTwice', by: 3 }, { context });
    await new CommandRunner(opened.store).run(counter, s, { type: 'Add', by: 4 }, { context });
    expect(await runner.state(counter, s)).toEqual({ total: 10, events: 3 });
  });

  it('decides again on a concurrency conflict: concurrent commands all count, none is lost', async () => {
    const runner = new CommandRunner(opened.store);
    const s = stream();
    await Promise.all(Array.from({ length: 8 }, () => runner.run(counter, s, { type: 'Add', by: 1 }, { context })));
    const last = await runner.run(counter, s, (state) => ({ type: 'Add' as const, by: state.total }), { context });
    expect(last.state.total).toBe(16); // 8, then doubled from the state it was decided on
  });

  it('appendAtAnyRevision: concurrent runs each decide once and append at any revision, no conflict', async () => {
    const expected: unknown[] = [];
    const watched: EventStore = Object.create(opened.store, {
      append: { value: (name: string, events: never[], revision: unknown) => (expected.push(revision), opened.store.append(name, events, revision as 'any')) },
    });
    const runner = new CommandRunner(watched);
    const s = stream();
    await runner.run(counter, s, { type: 'Add', by: 1 }, { context });
    const runs = await Promise.all(Array.from({ length: 8 }, () => runner.run(counter, s, { type: 'Add', by: 1 }, { context, appendAtAnyRevision: true })));
    expect(expected).toEqual(['no_stream', ...Array(8).fill('any')]);
    expect(runs.map((r) => r.revision).sort((a, b) => a! - b!)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await opened.store.readStream(s)).length).toBe(9);
  });

  it('gives up after a bounded number of conflicts', async () => {
    let appends = 0;
    const conflicted: EventStore = Object.create(opened.store, {
      append: { value: async (name: string) => (appends++, Promise.reject(new ConcurrencyError(name, 0, 1))) },
    });
    const runner = new CommandRunner(conflicted, null, { maxAttempts: 3 });
    await expect(runner.run(counter, stream(), { type: 'Add', by: 1 }, { context })).rejects.toBeInstanceOf(ConcurrencyError);
    expect(appends).toBe(3);
  });

  it('with deterministic ids, a second run of the same decision answers with the events the first appended', async () => {
    const runner = new CommandRunner(opened.store);
    const s = stream();
    const eventId = (i: number) => `9a0b6c1d-0000-5000-8000-0000000000${String(i).padStart(2, '0')}`;
    const first = await runner.run(counter, s, { type: 'AddTwice', by: 3 }, { context, eventId });
    // the same reaction, settled again (by the worker's backstop, or a timer fired twice): the
    // decider alone would add twice more; it is the ids that make the second run a replay
    const replay: Decider<CounterCommand, CounterEvent, CounterState, { max: number }> = { ...counter, decide: (c, st, ctx) => (st.total >= 6 ? [] : counter.decide(c, st, ctx)) };
    const second = await runner.run(replay, s, { type: 'AddTwice', by: 3 }, { context, eventId });
    expect(second.appended.map((a) => [a.eventId, a.before.total, a.after.total])).toEqual(first.appended.map((a) => [a.eventId, a.before.total, a.after.total]));
    expect(comparePositions(second.position!, first.position!)).toBe(0);
    expect((await opened.store.readStream(s)).length).toBe(2);
  });

  it('a new stream is appended without a read; a stream that exists already is a conflict, not an overwrite', async () => {
    let reads = 0;
    const counting: EventStore = Object.create(opened.store, {
      readStream: { value: (...args: Parameters<EventStore['readStream']>) => (reads++, opened.store.readStream(...args)) },
    });
    const runner = new CommandRunner(counting, null, { maxAttempts: 1 });
    const s = stream();
    await runner.run(counter, s, { type: 'Add', by: 1 }, { context, newStream: true });
    expect(reads).toBe(0);
    await expect(runner.run(counter, s, { type: 'Add', by: 1 }, { context, newStream: true })).rejects.toBeInstanceOf(ConcurrencyError);
  });

  it('waits for the read models at the appended position unless told not to; hooks run around the append only', async () => {
    const waited: LogPosition[] = [];
    const runner = new CommandRunner(opened.store, { waitFor: async (p) => (waited.push(p), true) });
    const calls: string[] = [];
    const hooks = { beforeAppend: async () => void calls.push('before'), afterAppend: async (revision: number) => void calls.push(`after ${revision}`) };
    const s = stream();
    const result = await runner.run(counter, s, { type: 'Add', by: 1 }, { context, ...hooks });
    expect(waited).toEqual([result.position]);
    expect(calls).toEqual(['before', 'after 0']);
    await runner.run(counter, s, { type: 'Add', by: 0 }, { context, ...hooks }); // nothing to append: no hooks, no wait
    await runner.run(counter, s, { type: 'Add', by: 1 }, { context, waitForReadModels: false });
    expect(waited).toHaveLength(1);
    expect(calls).toEqual(['before', 'after 0']);
  });
});

describe.each(['embedded', 'postgres'] as const)('CommandRunner: the streams it read or wrote last (%s)', (kind) => {
  const opened = storePerSuite(kind, 'kept');
  let streams = 0;
  const stream = () => `kept-${kind}-${++streams}-${Date.now()}`;
  const context = { max: 100 };


  /** The store, counting the stream reads that reach it. */
  function counting(store: EventStore = opened.store, options: { hideRecorded?: boolean } = {}) {
    const reads: string[] = [];
    const watched: EventStore = Object.create(store, {
      readStream: { value: (...args: Parameters<EventStore['readStream']>) => (reads.push(args[0]), store.readStream(...args)) },
      append: {
        value: async (...args: Parameters<EventStore['append']>) => {
          const result = await store.append(...args);
          return options.hideRecorded ? { ...result, recorded: undefined } : result;
        },
      },
    });
    return { store: watched, reads };
  }

  /** A runner whose store has already answered an append with its recorded events (as after a process's first write). */
  async function warmRunner(store: EventStore): Promise<CommandRunner> {
    const runner = new CommandRunner(store);
    await runner.run(counter, stream(), { type: 'Add', by: 1 }, { context, newStream: true });
    return runner;
  }

  it('decides on a stream it wrote last without reading it again, and answers as a fresh read would', async () => {
    const { store, reads } = counting();
    const runner = await warmRunner(store);
    const s = stream();
    await runner.run(counter, s, { type: 'Add', by: 1 }, { context, newStream: true });
    reads.length = 0;
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await runner.run(counter, s, { type: 'Add', by: 2 }, { context }));
    expect(reads).toEqual([]);
    expect(results.map((r) => [r.before.total, r.state.total, r.revision])).toEqual([
      [1, 3, 1],
      [3, 5, 2],
      [5, 7, 3],
      [7, 9, 4],
    ]);
    expect(results[3].recorded).toEqual(await opened.store.readStream(s).then((all) => all.slice(0, 4)));
  });

  it('another writer appended since: the append is refused, the stream read again and the command decided on it — nothing lost', async () => {
    const mine = counting();
    const runner = await warmRunner(mine.store);
    const other = new CommandRunner(opened.store); // another process
    const s = stream();
    await runner.run(counter, s, { type: 'Add', by: 1 }, { context, newStream: true });
    await other.run(counter, s, { type: 'Add', by: 10 }, { context });
    mine.reads.length = 0;
    const result = await runner.run(counter, s, { type: 'Add', by: 5 }, { context });
    expect(mine.reads).toEqual([s]); // read again after the refused append
    expect([result.before.total, result.state.total]).toEqual([11, 16]);
    expect((await opened.store.readStream(s)).map((e) => (e.data as { by: number }).by)).toEqual([1, 10, 5]);
  });

  it('a refusal decided on what it kept is decided again on the stream as it is', async () => {
    const runner = await warmRunner(opened.store);
    const other = new CommandRunner(opened.store);
    const s = stream();
    await runner.run(counter, s, { type: 'Add', by: 99 }, { context, newStream: true });
    await other.run(counter, s, { type: 'Reset' }, { context }); // kept: 99; as it is: 0
    const result = await runner.run(counter, s, { type: 'Add', by: 2 }, { context }); // over 100 on what was kept
    expect(result.state.total).toBe(2);
    await expect(runner.run(counter, s, { type: 'Add', by: 99 }, { context })).rejects.toThrow('over the maximum'); // a true refusal still refuses
  });

  it('nothing to do on what it kept is decided again on the stream as it is', async () => {
    const runner = await warmRunner(opened.store);
    const other = new CommandRunner(opened.store);
    const s = stream();
    await runner.run(counter, s, { type: 'Add', by: 3 }, { context, newStream: true });
    await runner.run(counter, s, { type: 'Reset' }, { context }); // kept: total 0
    await other.run(counter, s, { type: 'Add', by: 5 }, { context });
    const result = await runner.run(counter, s, { type: 'Reset' }, { context }); // nothing to reset on what was kept
    expect(result.appended.map((a) => a.event.type)).toEqual(['Reset']);
    expect((await opened.store.readStream(s)).map((e) => e.type)).toEqual(['Added', 'Reset', 'Added', 'Reset']);
  });

  it('a decision with deterministic ids that another process already appended is answered from the stream as it is', async () => {
    const runner = await warmRunner(opened.store);
    const other = new CommandRunner(opened.store);
    const s = stream();
    const base = randomUUID().slice(0, -2);
    const eventId = (i: number) => `${base}${String(i).padStart(2, '0')}`;
    const replay: Decider<CounterCommand, CounterEvent, CounterState, { max: number }> = { ...counter, decide: (c, st, ctx) => (st.total >= 7 ? [] : counter.decide(c, st, ctx)) };
    await runner.run(counter, s, { type: 'Add', by: 1 }, { context, newStream: true }); // kept: total 1
    await other.run(counter, s, { type: 'Add', by: 2 }, { context });
    const first = await other.run(replay, s, { type: 'AddTwice', by: 3 }, { context, eventId }); // 3 → 6 → 9
    const second = await runner.run(replay, s, { type: 'AddTwice', by: 3 }, { context, eventId });
    expect(second.appended.map((a) => [a.eventId, a.before.total, a.after.total])).toEqual(first.appended.map((a) => [a.eventId, a.before.total, a.after.total]));
    expect(second.appended.map((a) => a.after.total)).toEqual([6, 9]);
    expect((await opened.store.readStream(s)).length).toBe(4);
  });

  it('appendAtAnyRevision decides on the stream as it is, never on what was kept', async () => {
    const runner = await warmRunner(opened.store);
    const other = new CommandRunner(opened.store);
    const s = stream();
    await runner.run(counter, s, { type: 'Add', by: 1 }, { context, newStream: true });
    await other.run(counter, s, { type: 'Add', by: 4 }, { context });
    const result = await runner.run(counter, s, (state) => ({ type: 'Add' as const, by: state.total }), { context, appendAtAnyRevision: true });
    expect([result.before.total, result.state.total]).toEqual([5, 10]);
  });

  it('keeps nothing with a store that does not answer an append with its recorded events (EventStoreDB)', async () => {
    const { store, reads } = counting(opened.store, { hideRecorded: true });
    const runner = await warmRunner(store);
    const s = stream();
    await runner.run(counter, s, { type: 'Add', by: 1 }, { context, newStream: true });
    for (let i = 0; i < 3; i++) await runner.run(counter, s, { type: 'Add', by: 1 }, { context });
    expect(reads).toEqual([s, s, s]);
  });

  it('keeps at most keptEvents events, least recently used first out', async () => {
    const { store, reads } = counting();
    const runner = new CommandRunner(store, null, { keptEvents: 40 });
    await runner.run(counter, stream(), { type: 'Add', by: 1 }, { context, newStream: true });
    const all = Array.from({ length: 20 }, () => stream());
    for (const s of all) await runner.run(counter, s, { type: 'AddTwice', by: 1 }, { context, newStream: true }); // 2 events each: 40 kept
    await runner.run(counter, all[0], { type: 'Add', by: 1 }, { context }); // the first, used again: 41, so the least recently used (the second) goes
    expect(reads).toEqual([]);
    await runner.run(counter, all[0], { type: 'Add', by: 1 }, { context });
    await runner.run(counter, all[19], { type: 'Add', by: 1 }, { context });
    expect(reads).toEqual([]);
    await runner.run(counter, all[1], { type: 'Add', by: 1 }, { context });
    expect(reads).toEqual([all[1]]);
  });
});
