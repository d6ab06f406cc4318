import { Decider } from '@lib/domain';
import { CommandRunner, ConcurrencyError, EventStore, LogPosition, comparePositions } from '@lib/eventstore';
import { TestStore, openTestStore } from '../support/fixtures';

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
  let opened: TestStore;
  let streams = 0;
  const stream = () => `counter-${++streams}`;
  const context = { max: 100 };

  beforeAll(async () => {
    opened = await openTestStore('embedded');
  });
  afterAll(() => opened.cleanup());

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
