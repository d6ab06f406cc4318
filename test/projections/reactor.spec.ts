import { randomUUID } from 'node:crypto';
import { RecordedEvent, comparePositions } from '@lib/eventstore';
import { Reactor, ReactorHost, ReactorRunner, readCheckpoint, rebuildProjection, streamCatalogProjector } from '@lib/projections';
import { eventually } from '../support/eventually';
import { storePerSuite } from '../support/fixtures';

/**
 * Reactors (subscribers whose effects are commands) run on the projections' one subscriber loop:
 * the same checkpoint table and compare-and-set, the same retry, the same status with lag; and a
 * rebuild, which replays projectors, never resets or re-runs a reactor.
 */
describe('reactors on the one checkpointed subscriber loop (PostgreSQL)', () => {
  const opened = storePerSuite('postgres', 'reactor');


  const counts = new Map<string, number>();
  /** Appends n events numbered on from the stream's earlier ones (data.i = 0, 1, 2 …). */
  const append = async (stream: string, n: number) => {
    let last = null;
    for (let k = 0; k < n; k++) {
      const i = counts.get(stream) ?? 0;
      counts.set(stream, i + 1);
      last = (await opened.store.append(stream, [{ id: randomUUID(), type: 'Thing', data: { i } }], 'any')).position;
    }
    return last!;
  };

  it('handles each event once from its checkpoint, moves the checkpoint after the effects, and resumes there after a restart', async () => {
    const seen: string[] = [];
    const reactor: Reactor = { name: 'test-reactor-a', react: async (events) => void seen.push(...events.filter((e) => e.stream === 'a-1').map((e) => String((e.data as { i: number }).i))) };
    const last = await append('a-1', 3);
    const runner = new ReactorRunner(opened.store, opened.db, reactor);
    await runner.start();
    await eventually(() => readCheckpoint(opened.db, reactor.name), (c) => c.position !== null && comparePositions(c.position, last) >= 0, { what: 'checkpoint at the last event' });
    await runner.stop();
    expect(seen).toEqual(['0', '1', '2']);

    const later = await append('a-1', 2);
    const again = new ReactorRunner(opened.store, opened.db, reactor);
    await again.start();
    await eventually(() => readCheckpoint(opened.db, reactor.name), (c) => comparePositions(c.position!, later) >= 0, { what: 'checkpoint after the restart' });
    const status = await again.status();
    await again.stop();
    expect(seen).toEqual(['0', '1', '2', '3', '4']); // nothing twice, nothing skipped
    expect(status).toMatchObject({ name: 'test-reactor-a', state: 'running', lag: 0, lastError: null });
  });

  it('batches with nothing the reactor wants move no checkpoint: it is saved with the next wanted batch, before a status, on stop', async () => {
    const seen: number[] = [];
    const reactor: Reactor = {
      name: 'test-reactor-w',
      wants: (e) => e.stream === 'w-wanted',
      react: async (events) => void seen.push(...events.filter((e) => e.stream === 'w-wanted').map((e) => (e.data as { i: number }).i)),
    };
    const checkpoint = () => readCheckpoint(opened.db, reactor.name);
    const runner = new ReactorRunner(opened.store, opened.db, reactor, { idleFlushMs: 600_000 });
    await runner.start();
    const first = await append('w-wanted', 1);
    const stored = await eventually(checkpoint, (c) => c.position !== null && comparePositions(c.position, first) >= 0, { what: 'checkpoint at the first wanted event' });
    expect(stored.events).toBe(await opened.store.countAfter(null)); // every event of the log so far, once

    const skipped = await append('w-other', 3);
    await eventually(() => runner.position, (p) => p !== null && comparePositions(p, skipped) >= 0, { what: 'the unwanted events read' });
    expect(await checkpoint()).toEqual(stored); // read, not saved

    const wanted = await append('w-wanted', 1);
    const after = await eventually(checkpoint, (c) => comparePositions(c.position!, wanted) >= 0, { what: 'checkpoint after the next wanted event' });
    expect(after.events).toBe(await opened.store.countAfter(null)); // the skipped ones counted once, with it
    expect(seen).toEqual([0, 1]);

    const last = await append('w-other', 2);
    await eventually(() => runner.position, (p) => p !== null && comparePositions(p, last) >= 0, { what: 'the last events read' });
    expect(comparePositions((await checkpoint()).position!, wanted)).toBe(0);
    const status = await runner.status(); // saves what was read first
    expect(status).toMatchObject({ lag: 0, events: await opened.store.countAfter(null) });
    expect(comparePositions(status.position!, last)).toBe(0);

    const tail = await append('w-other', 1);
    await eventually(() => runner.position, (p) => p !== null && comparePositions(p, tail) >= 0, { what: 'the tail read' });
    await runner.stop(); // saves it too
    expect(comparePositions((await checkpoint()).position!, tail)).toBe(0);
    expect(seen).toEqual([0, 1]);
  });

  it('unwanted batches are saved once the log has been quiet for the idle flush', async () => {
    const reactor: Reactor = { name: 'test-reactor-q', wants: () => false, react: async () => undefined };
    const runner = new ReactorRunner(opened.store, opened.db, reactor, { idleFlushMs: 50 });
    await runner.start();
    const last = await append('q-1', 2);
    await eventually(() => readCheckpoint(opened.db, reactor.name), (c) => c.position !== null && comparePositions(c.position, last) >= 0, { what: 'saved by the idle flush' });
    await runner.stop();
  });

  it('a failing batch is retried from the last finished one, and the status says it is retrying meanwhile', async () => {
    let fail = true;
    const handled: RecordedEvent[] = [];
    const reactor: Reactor = {
      name: 'test-reactor-b',
      react: async (events) => {
        const mine = events.filter((e) => e.stream === 'b-1');
        if (fail && mine.length > 0) throw new Error('the effect failed');
        handled.push(...mine);
      },
    };
    const errors: unknown[] = [];
    const runner = new ReactorRunner(opened.store, opened.db, reactor, { onError: (e) => errors.push(e) });
    await runner.start();
    const last = await append('b-1', 2);
    const retrying = await eventually(() => runner.status(), (s) => s.state === 'retrying', { what: 'retrying' });
    expect(retrying.lastError).toBe('the effect failed');
    const stuck = await readCheckpoint(opened.db, reactor.name);
    expect(stuck.position === null || comparePositions(stuck.position, last) < 0).toBe(true); // not moved past the failed batch
    fail = false;
    await eventually(() => readCheckpoint(opened.db, reactor.name), (c) => comparePositions(c.position!, last) >= 0, { what: 'checkpoint after the retry' });
    await runner.stop();
    expect(handled.map((e) => (e.data as { i: number }).i)).toEqual([0, 1]);
    expect(errors.length).toBeGreaterThan(0);
  });

  it('a rebuild replays projectors only: the reactor checkpoint stays where it was', async () => {
    const reactor: Reactor = { name: 'test-reactor-c', react: async () => undefined };
    const last = await append('c-1', 1);
    const runner = new ReactorRunner(opened.store, opened.db, reactor);
    await runner.start();
    await eventually(() => readCheckpoint(opened.db, reactor.name), (c) => c.position !== null && comparePositions(c.position, last) >= 0);
    await runner.stop();
    const before = await readCheckpoint(opened.db, reactor.name);
    await rebuildProjection(opened.store, opened.db, streamCatalogProjector);
    expect(await readCheckpoint(opened.db, reactor.name)).toEqual(before);
  });

  it('one host runs every reactor of a process, each on its own checkpoint and batch size; stops them all; runs none where disabled', async () => {
    const seen = new Map<string, number[]>();
    const batches: number[] = [];
    const reactor = (name: string, stream: string, batchSize?: number): Reactor => ({
      name,
      batchSize,
      react: async (events) => {
        if (name === 'test-reactor-d') batches.push(events.length);
        seen.set(name, [...(seen.get(name) ?? []), ...events.filter((e) => e.stream === stream).map((e) => (e.data as { i: number }).i)]);
      },
    });
    const disabled = new ReactorHost(opened.store, opened.db, { enabled: false });
    await disabled.run(reactor('test-reactor-off', 'd-1'));
    expect(await disabled.status()).toEqual([]);

    const host = new ReactorHost(opened.store, opened.db, { enabled: true });
    const last = await append('d-1', 5);
    await host.run(reactor('test-reactor-d', 'd-1', 2));
    await host.run(reactor('test-reactor-e', 'd-1'));
    await expect(host.run(reactor('test-reactor-e', 'd-1'))).rejects.toThrow(/already running/);
    for (const name of ['test-reactor-d', 'test-reactor-e']) {
      await eventually(() => readCheckpoint(opened.db, name), (c) => c.position !== null && comparePositions(c.position, last) >= 0, { what: `${name} at the last event` });
    }
    const statuses = await host.status();
    expect(statuses).toEqual([expect.objectContaining({ name: 'test-reactor-d', state: 'running', lag: 0 }), expect.objectContaining({ name: 'test-reactor-e', state: 'running', lag: 0 })]);
    expect(seen.get('test-reactor-d')).toEqual([0, 1, 2, 3, 4]);
    expect(seen.get('test-reactor-e')).toEqual([0, 1, 2, 3, 4]);
    expect(Math.max(...batches)).toBeLessThanOrEqual(2); // the reactor's own batch size
    expect((await readCheckpoint(opened.db, 'test-reactor-off')).position).toBeNull(); // never ran

    await host.stop();
    expect((await host.status()).map((s) => s.state)).toEqual(['stopped', 'stopped']);
    await host.run(reactor('test-reactor-late', 'd-1')); // after the stop: not started
    expect((await readCheckpoint(opened.db, 'test-reactor-late')).updatedAt).toBeNull();
  });
});
