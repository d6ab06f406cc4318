import { ChainWatcher, type ChainWatcherOptions, EvmChainMismatchError, type EvmReader, createEvmReader } from '@lib/chains';
import { type AnvilNode, startAnvil } from '../../support/anvil';
import { type LedgerEntry, RecordingSink, SetWatched, watchSuite } from '../../support/chain-watch';
import { eventually } from '../../support/eventually';
import { STORE_KINDS } from '../../support/fixtures';
import { type TestUsdc, deployTestUsdc, randomAddress } from '../../support/test-usdc';

/**
 * The EVM watcher end to end on real nodes: anvil from npm as Ethereum (chain id 1, no
 * automining: every block is mined by the test) and as Polygon (chain id 137, automining), a
 * test USDC (6 decimals) compiled from test/fixtures/TestUSDC.sol and deployed on each, the
 * EVM reader (viem) and the ChainWatcher with its cursor, lease and pending transfers in SQL,
 * on both stores. Each test starts from empty watch tables, with fresh watched addresses.
 */

const GWEI = 1_000_000_000n;
const ETH = 10n ** 18n;

let eth: AnvilNode;
let polygon: AnvilNode;
let usdc: TestUsdc;
let polygonUsdc: TestUsdc;
let ethReader: EvmReader;
let polygonReader: EvmReader;

beforeAll(async () => {
  [eth, polygon] = await Promise.all([startAnvil({ chainId: 1, automine: false }), startAnvil({ chainId: 137 })]);
  [usdc, polygonUsdc] = await Promise.all([deployTestUsdc(eth), deployTestUsdc(polygon)]);
  for (const holder of [0, 2]) {
    await usdc.mint(eth.address(holder), 1_000_000_000_000n);
    await polygonUsdc.mint(polygon.address(holder), 1_000_000_000_000n);
  }
  ethReader = await createEvmReader({ network: 'ethereum', url: eth.url, tokens: [{ asset: 'USDC', contract: usdc.address }] });
  polygonReader = await createEvmReader({ network: 'polygon', url: polygon.url, tokens: [{ asset: 'USDC', contract: polygonUsdc.address }] });
});

afterAll(async () => {
  await Promise.all([eth?.close(), polygon?.close()]);
});

describe.each(STORE_KINDS)('EVM watcher on anvil (%s store)', (kind) => {
  // each test starts from empty tables: its watchers start at the node's next block
  const suite = watchSuite(kind, 'evmwatch');

  /** A watcher of the Ethereum anvil from its next block, polling every 50 ms. */
  async function ethWatcher(watched: SetWatched, sink: RecordingSink, options: Partial<ChainWatcherOptions> = {}): Promise<ChainWatcher> {
    const watcher = new ChainWatcher({
      reader: ethReader,
      watched,
      sink,
      db: suite.db,
      startHeight: (await eth.head()) + 1,
      pollMs: 50,
      backoffMs: 100,
      backoffMaxMs: 400,
      ...options,
    });
    suite.watch(watcher);
    return watcher;
  }

  const caughtUp = (watcher: ChainWatcher, node: AnvilNode) =>
    eventually(async () => watcher.status().height === (await node.head()), { what: `${watcher.network} watcher caught up` });

  /** The sink's entry of a transfer once it exists and `ok` holds for it. */
  const entryOf = (sink: RecordingSink, network: string, txHash: string, index: number, what: string, ok: (entry: LedgerEntry) => boolean = () => true) =>
    eventually(() => sink.entry(network, txHash, index), (entry) => entry !== undefined && ok(entry), { what }) as Promise<LedgerEntry>;

  /** Rows of transfers not final; a round writes them after its reports, so poll for them. */
  const pendingRows = async () => Number((await suite.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM chain_transfers`)).rows[0].n);

  it('reports a native ETH and a USDC transfer to watched addresses (amount, from, to, hash, index, block); not unwatched or reverted ones', async () => {
    const ethTo = randomAddress(eth);
    const usdcTo = randomAddress(eth);
    const stranger = randomAddress(eth);
    // watched in lower case: the watcher reports the EIP-55 form; the token contract is watched
    // too, so that the reverted ETH transfer to it below is a watched one
    const watched = new SetWatched([ethTo.toLowerCase(), usdcTo, usdc.address]);
    const sink = new RecordingSink();
    const watcher = await ethWatcher(watched, sink);
    watcher.start();

    // one block: a USDC transfer to a stranger first (block log index 0), then ours (log index 1)
    await eth.send(2, usdc.transfer(stranger, 1n, { priorityFee: 5n * GWEI }));
    const usdcTx = await eth.send(0, usdc.transfer(usdcTo, 12_345_678n, { priorityFee: 4n * GWEI }));
    const ethTx = await eth.send(1, { to: ethTo, value: (3n * ETH) / 2n, gas: 21_000n, priorityFee: 3n * GWEI });
    await eth.send(3, { to: stranger, value: 5n, gas: 21_000n, priorityFee: 2n * GWEI });
    const reverted = await eth.send(4, { to: usdc.address, value: 7n, gas: 100_000n, priorityFee: GWEI }); // TestUSDC has no receive()
    const height = await eth.mine();
    const [usdcReceipt, ethReceipt, revertedReceipt] = await Promise.all([eth.receipt(usdcTx), eth.receipt(ethTx), eth.receipt(reverted)]);
    expect(revertedReceipt.status).toBe('reverted');
    expect(usdcReceipt.logs[0].logIndex).toBe(1);
    const time = await blockTime(eth, usdcReceipt.blockHash); // the header's timestamp: lateness is judged by it (0025 addendum, 2026-11-29)
    const block = { height, hash: usdcReceipt.blockHash, time };

    await eventually(() => sink.ledger.size, (n) => n >= 2, { what: 'two transfers detected' });
    await caughtUp(watcher, eth);
    expect(sink.calls.filter((c) => c.kind === 'detected').map((c) => c.transfer)).toEqual([
      { network: 'ethereum', txHash: usdcTx, index: 0, asset: 'USDC', amount: 12_345_678n, to: usdcTo, from: eth.address(0), block },
      { network: 'ethereum', txHash: ethTx, index: -1, asset: 'ETH', amount: 1_500_000_000_000_000_000n, to: ethTo, from: eth.address(1), block: { height, hash: ethReceipt.blockHash, time } },
    ]);
    expect(sink.ledger.size).toBe(2);

    // the batch read and the one-block read see the same
    const one = await ethReader.block(height, watched);
    expect(await ethReader.blocks(height, height + 5, watched)).toEqual([one]);
    expect(one?.transfers.map((t) => t.txHash)).toEqual([usdcTx, ethTx]);
  });

  it('reports confirmations as they grow to the required count (4 on ethereum), then lets the transfer go', async () => {
    const to = randomAddress(eth);
    const sink = new RecordingSink();
    const watcher = await ethWatcher(new SetWatched([to]), sink);
    expect(watcher.status().confirmationsRequired).toBe(4);
    watcher.start();
    const tx = await eth.send(0, usdc.transfer(to, 5_000_000n));
    await eth.mine();
    const entry = await entryOf(sink, 'ethereum', tx, 0, 'detected, 1 confirmation', (e) => e.confirmations.length === 1);
    for (const count of [2, 3, 4]) {
      await eth.mine();
      await eventually(() => entry.confirmations.at(-1), (n) => n === count, { what: `${count} confirmations` });
    }
    await eth.mine(3);
    await caughtUp(watcher, eth);
    expect(entry.detections).toBe(1);
    expect(entry.confirmations).toEqual([1, 2, 3, 4]);
    expect(watcher.status()).toMatchObject({ pending: 0, orphaned: 0, lagBlocks: 0 });
    await eventually(pendingRows, (n) => n === 0, { what: 'no transfer row left (saved after the round that let it go)' });

    // an override of the count
    const quick = await ethWatcher(new SetWatched([to]), new RecordingSink(), { confirmationsRequired: 2 });
    expect(quick.status().confirmationsRequired).toBe(2);
  });

  it('a reorg before final: the transfer the new chain drops is withdrawn; the one it re-includes is followed in its new block', async () => {
    const dropped = randomAddress(eth);
    const kept = randomAddress(eth);
    const stranger = randomAddress(eth);
    const sink = new RecordingSink();
    const reorgs: unknown[] = [];
    const watcher = await ethWatcher(new SetWatched([dropped, kept]), sink, { onReorg: (r) => reorgs.push(r) });
    watcher.start();
    await eth.mine(); // the common ancestor: a block the watcher scanned before the fork
    await caughtUp(watcher, eth);

    const snapshot = await eth.snapshot();
    const base = await eth.head();
    const keptRaw = await eth.sign(0, usdc.transfer(kept, 7_000_000n));
    const keptTx = await eth.sendRaw(keptRaw);
    const droppedTx = await eth.send(1, { to: dropped, value: ETH / 100n, gas: 21_000n });
    await eth.mine(); // base + 1
    const keptEntry = await eventually(() => sink.entry('ethereum', keptTx, 0), { what: 'kept transfer detected' });
    const droppedEntry = await eventually(() => sink.entry('ethereum', droppedTx, -1), { what: 'dropped transfer detected' });
    const oldBlock = keptEntry.transfer.block;
    expect(oldBlock.height).toBe(base + 1);
    await eth.mine(); // base + 2
    await eventually(() => keptEntry.confirmations.at(-1), (n) => n === 2, { what: '2 confirmations before the reorg' });

    // the other chain: base+1' with a stranger's transfer, base+2' with the kept transaction
    // behind another one (its block log index moves from 0 to 1), then two more blocks
    await eth.revert(snapshot);
    await eth.send(2, usdc.transfer(stranger, 1n));
    await eth.mine();
    await eth.send(2, usdc.transfer(stranger, 2n, { priorityFee: 5n * GWEI }));
    expect(await eth.sendRaw(keptRaw)).toBe(keptTx);
    const newHeight = await eth.mine();
    const newReceipt = await eth.receipt(keptTx);
    expect(newHeight).toBe(base + 2);
    expect(newReceipt.logs[0].logIndex).toBe(1);
    await eth.mine(2);

    await eventually(() => droppedEntry.withdrawals, (n) => n === 1, { what: 'dropped transfer withdrawn' });
    await eventually(() => keptEntry.transfer.block, (b) => b.hash === newReceipt.blockHash, { what: 'kept transfer in its new block' });
    expect(keptEntry.transfer.block).toEqual({ height: base + 2, hash: newReceipt.blockHash, time: await blockTime(eth, newReceipt.blockHash) });
    expect(keptEntry.detections).toBe(2);
    await eth.mine();
    await eventually(() => keptEntry.confirmations.at(-1), (n) => n === 4, { what: 'kept transfer final' });
    await caughtUp(watcher, eth);

    expect(keptEntry.withdrawals).toBe(0);
    expect(droppedEntry.withdrawals).toBe(1);
    expect(droppedEntry.detections).toBe(1);
    expect(droppedEntry.confirmations).toEqual([1, 2]);
    expect(sink.calls.filter((c) => c.kind === 'withdrawn').map((c) => c.transfer.txHash)).toEqual([droppedTx]);
    expect(watcher.status().reorgs).toBeGreaterThanOrEqual(1);
    expect(reorgs[0]).toMatchObject({ network: 'ethereum', ancestor: base, orphaned: 2 });
    expect(watcher.status()).toMatchObject({ pending: 0, orphaned: 0 });
    await eventually(pendingRows, (n) => n === 0, { what: 'no transfer row left (saved after the round that let it go)' });
  });

  it('a restart over the same database reports nothing twice and misses nothing mined while it was down', async () => {
    const first = randomAddress(eth);
    const second = randomAddress(eth);
    const watched = new SetWatched([first, second]);
    const sink = new RecordingSink();
    const before = await ethWatcher(watched, sink);
    before.start();
    const firstTx = await eth.send(0, usdc.transfer(first, 1_000_000n));
    await eth.mine();
    const firstEntry = await entryOf(sink, 'ethereum', firstTx, 0, 'first transfer detected', (e) => e.confirmations.at(-1) === 1);
    await eth.mine();
    await eventually(() => firstEntry.confirmations.at(-1), (n) => n === 2, { what: 'first transfer, 2 confirmations' });
    await before.stop();
    expect(await pendingRows()).toBe(1);

    // while no watcher runs: a second transfer and blocks past both transfers' finality
    const secondTx = await eth.send(1, { to: second, value: 42n, gas: 21_000n });
    await eth.mine(5);

    const after = await ethWatcher(watched, sink, { startHeight: 0 }); // a stored cursor wins over startHeight
    after.start();
    const secondEntry = await entryOf(sink, 'ethereum', secondTx, -1, 'second transfer final', (e) => e.confirmations.at(-1) === 4);
    await eventually(() => firstEntry.confirmations.at(-1), (n) => n === 4, { what: 'first transfer final' });
    await caughtUp(after, eth);
    expect(firstEntry).toMatchObject({ detections: 1, confirmations: [1, 2, 4], withdrawals: 0 });
    expect(secondEntry).toMatchObject({ detections: 1, confirmations: [4], withdrawals: 0 });
    expect(sink.calls.filter((c) => c.kind === 'detected')).toHaveLength(2);
    await eventually(pendingRows, (n) => n === 0, { what: 'no transfer row left (saved after the round that let it go)' });
  });

  it('a node that goes away: back-off (shown in status), then recovery without losing or doubling a transfer', async () => {
    const to = randomAddress(eth);
    const sink = new RecordingSink();
    const errors: unknown[] = [];
    const watcher = await ethWatcher(new SetWatched([to]), sink, { onError: (e) => errors.push(e) });
    watcher.start();
    const firstTx = await eth.send(0, usdc.transfer(to, 3_000_000n));
    await eth.mine();
    await eventually(() => sink.entry('ethereum', firstTx, 0), { what: 'first transfer detected' });
    await caughtUp(watcher, eth);

    await eth.stop();
    const down = await eventually(() => watcher.status(), (s) => s.consecutiveFailures >= 4, { what: 'several failed rounds' });
    expect(down.lastError).toEqual(expect.any(String));
    expect(down.lastErrorAt).toBeInstanceOf(Date);
    expect(down.leaseHeld).toBe(true);
    // back-off doubles from 100 ms and stops growing at 400 ms
    const waits = await eventually(
      () => watcher.status(),
      (s) => s.backingOffUntil !== null && s.lastErrorAt !== null,
      { what: 'backing off' },
    );
    expect((waits.backingOffUntil as Date).getTime() - (waits.lastErrorAt as Date).getTime()).toBeLessThanOrEqual(450);
    expect(errors.length).toBeGreaterThanOrEqual(4);

    await eth.start(); // the same chain, loaded from its state file
    const secondTx = await eth.send(1, { to, value: 9n, gas: 21_000n });
    await eth.mine(4);
    await eventually(() => sink.entry('ethereum', secondTx, -1), (e) => e?.confirmations.at(-1) === 4, { what: 'second transfer final after recovery' });
    await eventually(() => sink.entry('ethereum', firstTx, 0), (e) => e?.confirmations.at(-1) === 4, { what: 'first transfer final after recovery' });
    const up = await eventually(() => watcher.status(), (s) => s.consecutiveFailures === 0 && s.lagBlocks === 0, { what: 'recovered' });
    expect(up).toMatchObject({ backingOffUntil: null, leaseHeld: true, pending: 0 });
    expect(up.lastError).toEqual(down.lastError); // kept for the record
    expect(sink.entry('ethereum', firstTx, 0)?.detections).toBe(1);
    expect(sink.entry('ethereum', secondTx, -1)?.detections).toBe(1);
  });

  it('a failing sink is retried: the block is reported again until it goes through, and nothing is lost', async () => {
    const to = randomAddress(eth);
    const sink = new RecordingSink();
    const watcher = await ethWatcher(new SetWatched([to]), sink);
    watcher.start();
    await caughtUp(watcher, eth);
    sink.fail = new Error('sink unavailable');
    const tx = await eth.send(0, usdc.transfer(to, 2_000_000n));
    await eth.mine();
    await eventually(() => watcher.status(), (s) => s.consecutiveFailures >= 2 && s.lastError === 'Error: sink unavailable', { what: 'sink failures' });
    sink.fail = null;
    await eventually(() => sink.entry('ethereum', tx, 0), { what: 'detected once the sink is back' });
    await eth.mine(3);
    await eventually(() => sink.entry('ethereum', tx, 0)?.confirmations.at(-1), (n) => n === 4, { what: 'final' });
    expect(sink.entry('ethereum', tx, 0)?.detections).toBe(1);
  });

  it('two watchers of one network: one holds the lease; a crashed holder is replaced once its lease expires', async () => {
    const to = randomAddress(eth);
    const watched = new SetWatched([to]);
    const sink = new RecordingSink();
    const options = { leaseMs: 2000, pollMs: 50 }; // renewed every 667 ms
    const a = await ethWatcher(watched, sink, { ...options, owner: 'worker-a' });
    const b = await ethWatcher(watched, sink, { ...options, owner: 'worker-b' });
    a.start();
    b.start();
    const [holder, standby] = await eventually(
      () => [a, b].sort((x, y) => Number(y.status().leaseHeld) - Number(x.status().leaseHeld)),
      ([x, y]) => x.status().leaseHeld && !y.status().leaseHeld,
      { what: 'one lease holder' },
    );
    const firstTx = await eth.send(0, usdc.transfer(to, 1_000_000n));
    await eth.mine();
    await eventually(() => sink.entry('ethereum', firstTx, 0), { what: 'first transfer detected' });
    expect(standby.status()).toMatchObject({ leaseHeld: false, height: null });
    // the lease renewal keeps the standby out well past one lease period
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect([holder.status().leaseHeld, standby.status().leaseHeld]).toEqual([true, false]);

    await holder.stop({ releaseLease: false }); // a crash: the lease stays until it expires
    const secondTx = await eth.send(1, { to, value: 1n, gas: 21_000n });
    await eth.mine();
    await eventually(() => standby.status().leaseHeld, { what: 'standby took the lease over', timeoutMs: 10_000 });
    await eventually(() => sink.entry('ethereum', secondTx, -1), { what: 'second transfer detected by the new holder' });
    await eth.mine(4);
    await eventually(() => sink.entry('ethereum', firstTx, 0)?.confirmations.at(-1), (n) => n === 4, { what: 'first final under the new holder' });
    expect(sink.entry('ethereum', firstTx, 0)?.detections).toBe(1);
    expect(sink.entry('ethereum', secondTx, -1)?.detections).toBe(1);
    const lease = (await suite.db.query<{ lease_owner: string }>(`SELECT lease_owner FROM chain_cursors WHERE network = 'ethereum'`)).rows[0];
    expect(lease.lease_owner).toBe(standby.owner);

    await standby.stop(); // a clean stop gives the lease up
    const released = (await suite.db.query<{ lease_owner: string | null }>(`SELECT lease_owner FROM chain_cursors WHERE network = 'ethereum'`)).rows[0];
    expect(released.lease_owner).toBeNull();
  });

  it('the same address receiving on another EVM chain (polygon, chain id 137) is reported with that network', async () => {
    const to = randomAddress(eth);
    const watched = new SetWatched([to]);
    const ethSink = new RecordingSink();
    const polygonSink = new RecordingSink();
    const ethWatch = await ethWatcher(watched, ethSink);
    const polygonWatch = new ChainWatcher({
      reader: polygonReader,
      watched,
      sink: polygonSink,
      db: suite.db,
      startHeight: (await polygon.head()) + 1,
      pollMs: 50,
      confirmationsRequired: 2,
    });
    suite.watch(polygonWatch);
    ethWatch.start();
    polygonWatch.start();

    const usdcTx = await polygon.send(0, polygonUsdc.transfer(to, 4_200_000n)); // automined
    await polygon.send(1, { to, value: ETH, gas: 21_000n }); // POL: not a payment asset
    const receipt = await polygon.receipt(usdcTx);
    const entry = await eventually(() => polygonSink.entry('polygon', usdcTx, 0), { what: 'polygon transfer detected' });
    expect(entry.transfer).toEqual({
      network: 'polygon',
      txHash: usdcTx,
      index: 0,
      asset: 'USDC',
      amount: 4_200_000n,
      to,
      from: polygon.address(0),
      block: { height: Number(receipt.blockNumber), hash: receipt.blockHash, time: await blockTime(polygon, receipt.blockHash) },
    });
    await eventually(() => entry.confirmations.at(-1), (n) => n === 2, { what: 'final on polygon (2 required here)' });
    await caughtUp(polygonWatch, polygon);
    await eth.mine();
    await caughtUp(ethWatch, eth);
    expect(polygonSink.ledger.size).toBe(1);
    expect(ethSink.ledger.size).toBe(0);
    const cursors = (await suite.db.query<{ network: string }>(`SELECT network FROM chain_cursors ORDER BY network`)).rows.map((r) => r.network);
    expect(cursors).toEqual(['ethereum', 'polygon']);
  });

  it('a reader refuses a node of another chain', async () => {
    const wrong = await createEvmReader({ network: 'ethereum', url: polygon.url });
    await expect(wrong.head()).rejects.toBeInstanceOf(EvmChainMismatchError);
    const watcher = new ChainWatcher({ reader: wrong, watched: new SetWatched(), sink: new RecordingSink(), db: suite.db, pollMs: 50, backoffMs: 50 });
    suite.watch(watcher);
    watcher.start();
    const status = await eventually(() => watcher.status(), (s) => s.consecutiveFailures > 0, { what: 'failing on the wrong chain' });
    expect(status.lastError).toMatch(/EvmChainMismatchError: the node for ethereum serves chain id 137, not 1/);
  });
});

/** The timestamp a block's header states (seconds since the epoch), asked of the node itself. */
async function blockTime(node: AnvilNode, hash: string): Promise<number> {
  const block = await node.rpc<{ timestamp: string }>('eth_getBlockByHash', [hash, false]);
  return Number(BigInt(block.timestamp));
}
