import { createHash } from 'node:crypto';
import { ChainWatchStore, ChainWatcher, type ChainReader, type ChainWatcherOptions, type MempoolSnapshot, type NetworkId, type ObservedTransfer, type PendingTransfer, type ScannedBlock, type WatchedAddresses } from '@lib/chains';
import { type LedgerEntry, RecordingSink, SetWatched, watchSuite } from '../support/chain-watch';
import { eventually } from '../support/eventually';

/**
 * The generic ChainWatcher against a scripted chain (no node): what the anvil suite cannot
 * produce on demand — heights without a block (skipped Solana slots), a node that fails to serve
 * a block it has, a reorg deeper than the remembered window, a lease taken by another worker
 * mid-run, readers with and without the batch read. On the embedded database.
 */

interface FakeBlock {
  height: number;
  hash: string;
  parentHash: string;
  /** [to, txHash, amount, index in the transaction (default 0)] */
  transfers: [string, string, bigint, number?][];
}

/** A chain in memory; `fork` starts another branch. Addresses are plain strings. */
class FakeChain {
  readonly blocks = new Map<number, FakeBlock>();
  /** Heights the node answers null for once, though it has them (a lagging backend). */
  readonly flaky = new Set<number>();
  private salt = 0;
  reads = 0;

  constructor(
    readonly network: NetworkId,
    /** Whether its reader offers the batch read. */
    readonly batch: boolean,
  ) {
    this.append(0, []);
  }

  get tipHeight(): number {
    return Math.max(...this.blocks.keys());
  }

  /** A block at `height` (default: the next), after the current tip; heights between stay empty (skipped slots). */
  append(height: number | null, transfers: [string, string, bigint, number?][]): FakeBlock {
    const tip = this.blocks.size ? this.blocks.get(this.tipHeight) : undefined;
    const at = height ?? (tip ? tip.height + 1 : 0);
    const hash = createHash('sha256').update(`${at}:${this.salt}:${tip?.hash ?? ''}`).digest('hex');
    const block = { height: at, hash, parentHash: tip?.hash ?? '0'.repeat(64), transfers };
    this.blocks.set(at, block);
    return block;
  }

  /** Drops every block above `height`: the next appends are another branch. */
  fork(height: number): void {
    for (const h of [...this.blocks.keys()]) if (h > height) this.blocks.delete(h);
    this.salt++;
  }

  async head(): Promise<number> {
    return this.tipHeight;
  }

  async blockHash(height: number): Promise<string | null> {
    return this.blocks.get(height)?.hash ?? null;
  }

  async block(height: number, watched: WatchedAddresses): Promise<ScannedBlock | null> {
    this.reads++;
    if (this.flaky.delete(height)) return null;
    const block = this.blocks.get(height);
    if (!block) return null;
    const wanted = await watched.watched('bitcoin', block.transfers.map(([to]) => to));
    const transfers: ObservedTransfer[] = block.transfers
      .filter(([to]) => wanted.has(to))
      .map(([to, txHash, amount, index]) => ({ network: this.network, txHash, index: index ?? 0, asset: 'BTC', amount, to, from: null, block: { height, hash: block.hash } }));
    return { height, hash: block.hash, parentHash: block.parentHash, transfers };
  }

  async readRange(from: number, to: number, watched: WatchedAddresses): Promise<readonly ScannedBlock[]> {
    const out: ScannedBlock[] = [];
    for (let h = from; h <= to; h++) {
      const block = await this.block(h, watched);
      if (block) out.push(block);
    }
    return out;
  }
}

function readerOf(chain: FakeChain): ChainReader {
  const reader: ChainReader = {
    network: chain.network,
    head: () => chain.head(),
    blockHash: (h) => chain.blockHash(h),
    block: (h, w) => chain.block(h, w),
  };
  return chain.batch ? { ...reader, blocks: (from, to, w) => chain.readRange(from, to, w) } : reader;
}

describe.each([
  ['block() per height', false],
  ['the batch read', true],
])('ChainWatcher on a scripted chain, %s', (_name, batch) => {
  const suite = watchSuite('embedded', 'watchspec');

  function watcherOf(chain: FakeChain, sink: RecordingSink, options: Partial<ChainWatcherOptions> = {}): ChainWatcher {
    const watcher = new ChainWatcher({
      reader: readerOf(chain),
      watched: new SetWatched(['alice', 'bob'], 'bitcoin'),
      sink,
      db: suite.db,
      startHeight: 1,
      confirmationsRequired: 3,
      pollMs: 10,
      batchBlocks: 4,
      backoffMs: 10,
      ...options,
    });
    suite.watch(watcher);
    return watcher;
  }

  const entry = (sink: RecordingSink, txHash: string, what: string, ok: (e: LedgerEntry) => boolean = () => true) =>
    eventually(() => sink.entry('bitcoin', txHash, 0), (e) => e !== undefined && ok(e), { what }) as Promise<LedgerEntry>;

  it('passes over heights without a block (skipped slots) and reports what comes after, once', async () => {
    const chain = new FakeChain('bitcoin', batch);
    chain.append(1, [['alice', 'tx1', 5n]]);
    chain.append(4, [['bob', 'tx4', 7n], ['carol', 'tx4c', 1n]]); // 2 and 3 skipped
    chain.append(9, []);
    chain.append(10, []);
    const sink = new RecordingSink();
    const watcher = watcherOf(chain, sink);
    watcher.start();
    const tx4 = await entry(sink, 'tx4', 'tx4 final', (e) => e.confirmations.at(-1) === 3);
    const tx1 = await entry(sink, 'tx1', 'tx1 final', (e) => e.confirmations.at(-1) === 3);
    expect(tx4.transfer.block).toEqual({ height: 4, hash: chain.blocks.get(4)?.hash });
    expect(tx1.detections + tx4.detections).toBe(2);
    expect(sink.ledger.size).toBe(2);
    await eventually(() => watcher.status(), (s) => s.height === 10 && s.lagBlocks === 0, { what: 'at the tip' });
    expect(watcher.status().reorgs).toBe(0);
  });

  it('records when it last caught up (the time it asked for the head it then scanned up to): never while behind, again at every caught-up round (0025 addendum, 2026-11-29, lateness at mining)', async () => {
    const chain = new FakeChain('bitcoin', batch);
    for (let h = 1; h <= 9; h++) chain.append(h, []);
    let clock = Date.parse('2026-11-29T12:00:00.000Z');
    const store = new ChainWatchStore(suite.db);
    expect(await store.readThrough('bitcoin')).toBeNull(); // never watched
    // a node that stops answering the head after the first round: the watcher is 4 blocks in (batchBlocks), still behind
    let heads = 0;
    const stalled: ChainReader = { ...readerOf(chain), head: () => (heads++ === 0 ? chain.head() : Promise.reject(new Error('node down'))) };
    const behind = new ChainWatcher({ reader: stalled, watched: new SetWatched([], 'bitcoin'), sink: new RecordingSink(), db: suite.db, startHeight: 1, confirmationsRequired: 3, pollMs: 10, batchBlocks: 4, backoffMs: 10, now: () => new Date(clock) });
    suite.watch(behind);
    behind.start();
    await eventually(() => behind.status(), (s) => s.consecutiveFailures > 0 && s.height === 4, { what: 'four blocks read, then the node down' });
    await behind.stop();
    expect(await store.readThrough('bitcoin')).toEqual({ caughtUpAt: null }); // behind: nothing read through any time
    const sink = new RecordingSink();
    const watcher = watcherOf(chain, sink, { now: () => new Date(clock) });
    watcher.start();
    await eventually(() => store.readThrough('bitcoin'), (r) => r?.caughtUpAt?.getTime() === clock, { what: 'caught up at the time the head was asked' });
    clock += 60_000; // an idle chain: no new block, yet every round reads it through the time it asked
    await eventually(() => store.readThrough('bitcoin'), (r) => r?.caughtUpAt?.getTime() === clock, { what: 'caught up again a minute later' });
  });

  it('a block the node fails to serve once is read again (the next block does not follow the last one scanned)', async () => {
    const chain = new FakeChain('bitcoin', batch);
    for (let h = 1; h <= 3; h++) chain.append(h, []);
    chain.append(4, [['alice', 'tx4', 1n]]);
    chain.append(5, []);
    chain.append(6, []);
    chain.flaky.add(4);
    const sink = new RecordingSink();
    const watcher = watcherOf(chain, sink, { batchBlocks: 1 });
    watcher.start();
    const tx4 = await entry(sink, 'tx4', 'tx4 detected despite the gap', (e) => e.confirmations.at(-1) === 3);
    expect(tx4.detections).toBe(1);
    expect(watcher.status()).toMatchObject({ reorgs: 0, height: 6 });
  });

  it('a reorg deeper than the window of single blocks rewinds to an older remembered block and misses nothing', async () => {
    const chain = new FakeChain('bitcoin', batch);
    const sink = new RecordingSink();
    const watcher = watcherOf(chain, sink, { confirmationsRequired: 10, reorgWindow: 2, batchBlocks: 50 }); // window: 11 blocks
    watcher.start();
    chain.append(1, [['alice', 'old', 1n]]);
    for (let h = 2; h <= 400; h++) chain.append(h, []);
    await entry(sink, 'old', 'old final', (e) => e.confirmations.at(-1) === 10);
    await eventually(() => watcher.status().height, (h) => h === 400, { what: 'scanned to 400' });
    const remembered = async () =>
      ((await suite.db.query<{ recent_blocks: [number, string][] }>(`SELECT recent_blocks FROM chain_cursors WHERE network = 'bitcoin'`)).rows[0].recent_blocks).map(([h]) => h);
    const heights = await remembered();
    // 11 single blocks, then one per doubling distance, back to the first block scanned
    expect(heights.slice(-11)).toEqual(Array.from({ length: 11 }, (_, i) => 390 + i));
    expect(heights.length).toBeLessThanOrEqual(11 + 9);
    expect(heights[0]).toBe(1);
    // a branch from 250, 150 blocks deep, carrying a transfer at 251
    chain.fork(250);
    chain.append(251, [['bob', 'new', 2n]]);
    for (let h = 252; h <= 420; h++) chain.append(h, []);
    const fresh = await entry(sink, 'new', 'new branch transfer final', (e) => e.confirmations.at(-1) === 10);
    expect(fresh.transfer.block.height).toBe(251);
    const reorg = watcher.status().lastReorg;
    expect(reorg?.oldTip).toBe(400);
    expect(reorg?.ancestor).toBeLessThanOrEqual(250);
    expect(reorg?.ancestor).toBeGreaterThanOrEqual(400 - 4 * 150);
    expect(sink.entry('bitcoin', 'old', 0)?.withdrawals).toBe(0);
    await eventually(() => watcher.status().height, (h) => h === 420, { what: 'scanned the new branch' });
  });

  it('a transaction mined again with its transfer at another place in it (a CPI, a log, placed by the state it ran on) has moved: never withdrawn; with another amount it is withdrawn first, then detected with the new amount', async () => {
    // the sink knows a transfer by its transaction (a checkout does): a withdrawal of the old
    // place after the new one was detected would take the transaction away while it is in the
    // chain, and a new amount reported as a move would leave the old amount credited
    const chain = new FakeChain('bitcoin', batch);
    const sink = new RecordingSink();
    const watcher = watcherOf(chain, sink);
    watcher.start();
    chain.append(1, [['alice', 'moved', 5n, 1999], ['bob', 'changed', 7n, 1999]]);
    await eventually(() => ['moved', 'changed'].map((tx) => sink.entry('bitcoin', tx, 1999)), (es) => es.every((e) => e?.confirmations.at(-1) === 1), { what: 'both detected at 1' });
    chain.fork(0);
    chain.append(1, []);
    chain.append(2, [['alice', 'moved', 5n, 1003], ['bob', 'changed', 6n, 1999]]);
    for (let h = 3; h <= 6; h++) chain.append(h, []);
    await eventually(() => [sink.entry('bitcoin', 'moved', 1003), sink.entry('bitcoin', 'changed', 1999)], (es) => es.every((e) => e?.confirmations.at(-1) === 3), { what: 'both final on the new branch' });
    await eventually(() => watcher.status(), (s) => s.height === 6 && s.pending === 0 && s.orphaned === 0, { what: 'nothing left to follow' });
    const reports = (tx: string) => sink.calls.filter((c) => c.transfer.txHash === tx && c.kind !== 'confirmed').map((c) => [c.kind, c.transfer.index, c.transfer.amount, c.transfer.block.height]);
    expect(reports('moved')).toEqual([
      ['detected', 1999, 5n, 1],
      ['detected', 1003, 5n, 2],
    ]);
    expect(reports('changed')).toEqual([
      ['detected', 1999, 7n, 1],
      ['withdrawn', 1999, 7n, 1],
      ['detected', 1999, 6n, 2],
    ]);
    expect(await suite.db.query(`SELECT 1 FROM chain_transfers WHERE network = 'bitcoin'`)).toMatchObject({ rowCount: 0 });
  });

  it('a lease taken over by another worker stops the writes of the one that lost it', async () => {
    const chain = new FakeChain('bitcoin', batch);
    const sink = new RecordingSink();
    const watcher = watcherOf(chain, sink, { leaseMs: 60_000 });
    watcher.start();
    chain.append(1, [['alice', 'tx1', 1n]]);
    await entry(sink, 'tx1', 'tx1 detected');
    await eventually(() => watcher.status().height, (h) => h === 1, { what: 'scanned 1' });
    await suite.db.query(`UPDATE chain_cursors SET lease_owner = 'intruder', lease_until = now() + interval '1 hour' WHERE network = 'bitcoin'`);
    const stored = async () => (await suite.db.query<{ next_height: string }>(`SELECT next_height::text FROM chain_cursors WHERE network = 'bitcoin'`)).rows[0].next_height;
    const before = await stored();
    chain.append(2, []);
    await eventually(() => watcher.status().leaseHeld, (held) => !held, { what: 'lease lost' });
    chain.append(3, []);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await stored()).toBe(before);
    expect(watcher.status().leaseHeld).toBe(false);
  });
});

describe('ChainWatcher and the mempool (a reader and a sink that look at it: 0023 addendum, 2026-11-29)', () => {
  const suite = watchSuite('embedded', 'watchmempool');

  /** A sink that also names addresses to look at and records the mempool snapshots it is given. */
  class MempoolSink extends RecordingSink {
    readonly snapshots: MempoolSnapshot[] = [];
    awaiting: string[] = ['alice'];
    async awaitingAddresses(network: NetworkId): Promise<readonly string[]> {
      expect(network).toBe('bitcoin');
      return this.awaiting;
    }
    async mempool(snapshot: MempoolSnapshot): Promise<void> {
      this.snapshots.push(snapshot);
    }
  }

  it('once caught up, reports the mempool of each address the sink names, after the blocks and at most every mempoolPollMs; a failed look stops no block', async () => {
    const chain = new FakeChain('bitcoin', false);
    chain.append(1, [['alice', 'tx1', 5n]]);
    let pool: PendingTransfer[] = [{ network: 'bitcoin', txHash: 'tx2', asset: 'BTC', amount: 7n, to: 'alice' }];
    let failing = false;
    const looks: string[] = [];
    const reader: ChainReader = {
      ...readerOf(chain),
      mempool: async (address) => {
        looks.push(address);
        if (failing) throw new Error('esplora down');
        return { network: 'bitcoin', address, pending: pool.filter((p) => p.to === address), mined: ['tx1'] };
      },
    };
    const sink = new MempoolSink();
    const errors: unknown[] = [];
    const watcher = suite.watch(
      new ChainWatcher({ reader, watched: new SetWatched(['alice', 'bob'], 'bitcoin'), sink, db: suite.db, startHeight: 1, confirmationsRequired: 3, pollMs: 10, mempoolPollMs: 50, backoffMs: 10, onError: (e) => errors.push(e) }),
    );
    watcher.start();
    const first = await eventually(() => sink.snapshots[0], { what: 'a mempool snapshot' });
    expect(first).toEqual({ network: 'bitcoin', address: 'alice', pending: [{ network: 'bitcoin', txHash: 'tx2', asset: 'BTC', amount: 7n, to: 'alice' }], mined: ['tx1'] });
    // the blocks first: tx1 was reported before the first look
    expect(sink.calls[0]).toMatchObject({ kind: 'detected', transfer: { txHash: 'tx1' } });

    // a look that fails is told, and the blocks go on; the watcher stays healthy
    failing = true;
    const failedAt = looks.length;
    await eventually(() => looks.length, (n) => n > failedAt, { what: 'a failed look' });
    chain.append(2, [['bob', 'tx3', 1n]]);
    await eventually(() => sink.entry('bitcoin', 'tx3', 0), { what: 'tx3 detected while the mempool fails' });
    expect(errors.some((e) => (e as Error).message === 'esplora down')).toBe(true);
    expect(watcher.status().consecutiveFailures).toBe(0);

    // looked at again once it answers; every look is spaced by mempoolPollMs at least, not every round of 10 ms
    failing = false;
    pool = [];
    const before = sink.snapshots.length;
    await eventually(() => sink.snapshots.length, (n) => n > before, { what: 'looked at again' });
    expect(sink.snapshots.at(-1)).toMatchObject({ address: 'alice', pending: [] });
    expect(watcher.status().mempoolLooks).toBe(sink.snapshots.length);
    expect(looks.length).toBeLessThan(watcher.status().blocksScanned + 40);
  });

  it('looks at many addresses up to mempoolConcurrency at once, each once per look', async () => {
    const chain = new FakeChain('bitcoin', false);
    chain.append(1, []);
    let inFlight = 0;
    let most = 0;
    const reader: ChainReader = {
      ...readerOf(chain),
      mempool: async (address) => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight--;
        return { network: 'bitcoin', address, pending: [], mined: [] };
      },
    };
    const sink = new MempoolSink();
    sink.awaiting = Array.from({ length: 20 }, (_, i) => `addr${i}`);
    const watcher = suite.watch(
      new ChainWatcher({ reader, watched: new SetWatched([], 'bitcoin'), sink, db: suite.db, startHeight: 1, confirmationsRequired: 3, pollMs: 10, mempoolPollMs: 60_000, mempoolConcurrency: 4 }),
    );
    watcher.start();
    await eventually(() => sink.snapshots.length, (n) => n === 20, { what: 'the 20 addresses looked at' });
    expect(new Set(sink.snapshots.map((s) => s.address))).toEqual(new Set(sink.awaiting));
    expect(most).toBe(4); // four at a time, never more: 20 × 20 ms take ~100 ms, not 400
    expect(watcher.status().mempoolLooks).toBe(20);
  });

  it('a reader without the mempool read, or a sink that does not ask, looks at nothing', async () => {
    const chain = new FakeChain('bitcoin', false);
    chain.append(1, [['alice', 'tx1', 5n]]);
    const sink = new MempoolSink();
    const watcher = suite.watch(new ChainWatcher({ reader: readerOf(chain), watched: new SetWatched(['alice'], 'bitcoin'), sink, db: suite.db, startHeight: 1, confirmationsRequired: 3, pollMs: 10, mempoolPollMs: 10 }));
    watcher.start();
    await eventually(() => sink.entry('bitcoin', 'tx1', 0), (e) => e?.confirmations.length === 1, { what: 'tx1 detected' });
    expect(sink.snapshots).toEqual([]);
    expect(watcher.status().mempoolLooks).toBe(0);
  });
});
