/**
 * `npm run bench:chains`: the EVM chain watcher (libs/chains: ChainWatcher over the viem EVM
 * reader, its cursor and pending transfers in SQL) on a local anvil (chain id 1, no automining),
 * with BENCH_ADDRESSES (10,000) watched addresses and blocks carrying BENCH_TRANSFERS (200) USDC
 * transfers each, all of them to watched addresses (test/fixtures/TestUSDC.sol, 6 decimals;
 * BENCH_TXS (10) transactions a block, each a transferMany to TRANSFERS/TXS recipients).
 *
 * In the same run, over the same BENCH_BLOCKS (100) blocks, in BENCH_BATCH (20)-block ranges:
 *   1. baselines: bare viem getLogs of the token's Transfer logs (decoded by viem), range after
 *      range (what a log scanner written with viem does at least), and the same eth_getLogs
 *      sent raw, not decoded (the node and JSON alone; the reader decodes Transfer logs itself);
 *   2. the EVM reader alone: reader.blocks() per range (blocks with their transactions, one
 *      getLogs, one WatchedAddresses call, the matched transactions' receipts), no database;
 *   3. the watcher catching up over the backlog on each store (BENCH_STORES): from the first
 *      block until every transfer is detected and the cursor is at the last block (confirmations
 *      reported and final transfers let go on the way; ethereum requires 4);
 *   rounds 1–3 alternate, BENCH_ROUNDS (3) times after one warm-up round; medians reported;
 *   4. detection latency on each store: the watcher caught up and polling every BENCH_POLL_MS
 *      (100; the default for ethereum is 3 s, a quarter of its block time), BENCH_LATENCY_BLOCKS
 *      (30) blocks mined BENCH_BLOCK_MS (500) apart; per transfer, from the mining call's answer
 *      to sink.detected (p50/p99).
 *
 * The WatchedAddresses here is an in-memory Set (the service's answers from its own table); the
 * sink counts (the service's turns reports into commands). Transactions are signed before each
 * phase, so signing takes no time from the watcher.
 *
 *   5. through the whole service on each store: a live business with a wallet on the real app, its
 *      node this anvil; BENCH_SERVICE_PAYMENTS (20) checkouts, each paid by one token transfer in a
 *      block of its own; from the block's mining to GET /checkouts/{id} answering `confirming`
 *      (the watcher, the sink, the process manager and the projections in the path).
 *
 * Env: BENCH_ADDRESSES, BENCH_BLOCKS, BENCH_TRANSFERS, BENCH_TXS, BENCH_BATCH, BENCH_ROUNDS,
 * BENCH_POLL_MS, BENCH_LATENCY_BLOCKS, BENCH_BLOCK_MS, BENCH_SERVICE_PAYMENTS, BENCH_STORES (embedded,postgres),
 * BENCH_DATABASE_URL. Results: a table, and bench/results/chains-<date>.json.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { ChainWatcher, type EvmReader, type NetworkFamily, type ObservedTransfer, type TransferSink, type WatchedAddresses, createEvmReader } from '@lib/chains';
import { type Database, connectPostgres, migrate, openEmbedded } from '@lib/database';
import { type AnvilNode, type Hex, startAnvil } from '../test/support/anvil';
import { type TestUsdc, deployTestUsdc } from '../test/support/test-usdc';
import { openBenchStore } from './support/bench-store';
import { AddressInfo } from 'node:net';
import { BusinessService } from '@lib/businesses';
import { loadConfig } from '@lib/core';
import { createApiApp } from '../apps/api/src/bootstrap';
import { runBench, saveResults } from './support/report';
import { benchNumbers, benchStores } from './support/settings';

const { ADDRESSES, BLOCKS, TRANSFERS, TXS, BATCH, ROUNDS, POLL_MS, LATENCY_BLOCKS, BLOCK_MS, SERVICE_PAYMENTS } = benchNumbers({
  ADDRESSES: 10_000,
  BLOCKS: 100,
  TRANSFERS: 200,
  TXS: 10,
  BATCH: 20,
  ROUNDS: 3,
  POLL_MS: 100,
  LATENCY_BLOCKS: 30,
  BLOCK_MS: 500,
  SERVICE_PAYMENTS: 20,
});
const STORES = benchStores('embedded,postgres');
const PER_TX = Math.ceil(TRANSFERS / TXS);
const TRANSFER_EVENT = {
  type: 'event',
  name: 'Transfer',
  inputs: [
    { type: 'address', name: 'from', indexed: true },
    { type: 'address', name: 'to', indexed: true },
    { type: 'uint256', name: 'value', indexed: false },
  ],
} as const;

const now = () => performance.now();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** The service's address book, as a Set. */
class SetWatched implements WatchedAddresses {
  calls = 0;
  constructor(private readonly set: ReadonlySet<string>) {}
  async watched(family: NetworkFamily, addresses: readonly string[]): Promise<ReadonlySet<string>> {
    this.calls++;
    return new Set(family === 'evm' ? addresses.filter((a) => this.set.has(a.toLowerCase())) : []);
  }
}

/** Counts reports; remembers when each transfer was first detected. */
class CountingSink implements TransferSink {
  detected_ = 0;
  confirmed_ = 0;
  readonly firstSeen = new Map<string, number>();
  constructor(private readonly timed = false) {}
  async detected(t: ObservedTransfer): Promise<void> {
    this.detected_++;
    if (this.timed) {
      const key = `${t.txHash}:${t.index}`;
      if (!this.firstSeen.has(key)) this.firstSeen.set(key, now());
    }
  }
  async confirmed(): Promise<void> {
    this.confirmed_++;
  }
  async withdrawn(): Promise<void> {
    throw new Error('no reorg happens in this benchmark');
  }
}

interface Row {
  what: string;
  store: string;
  blocksPerSecond: number | null;
  transfersPerSecond: number | null;
  p50: number | null;
  p99: number | null;
  note: string;
}

/** Signs `blocks` blocks' worth of transactions (TXS a block, account i sends the i-th). */
async function signBlocks(node: AnvilNode, token: TestUsdc, recipients: readonly Hex[], blocks: number, nonces: number[], cursor: { next: number }): Promise<Hex[][]> {
  const out: Hex[][] = [];
  for (let b = 0; b < blocks; b++) {
    const txs: Hex[] = [];
    for (let i = 0; i < TXS; i++) {
      const to: Hex[] = [];
      const amounts: bigint[] = [];
      for (let k = 0; k < PER_TX && b * TRANSFERS + i * PER_TX + k < (b + 1) * TRANSFERS; k++) {
        to.push(recipients[cursor.next++ % recipients.length]);
        amounts.push(BigInt(1 + (cursor.next % 1_000_000)));
      }
      txs.push(await node.sign(i, { ...token.transferMany(to, amounts), nonce: nonces[i]++ }));
    }
    out.push(txs);
  }
  return out;
}

/** Sends one block's transactions in one JSON-RPC batch, then mines them; resolves when mine answered. */
async function mineBlock(node: AnvilNode, raws: readonly Hex[]): Promise<number> {
  const response = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(raws.map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] }))),
  });
  const answers = (await response.json()) as { error?: { message: string } }[];
  const failed = answers.find((a) => a.error);
  if (failed) throw new Error(`eth_sendRawTransaction: ${failed.error?.message}`);
  await node.rpc('evm_mine');
  return now();
}

/**
 * A live business with a wallet on the real app (in this process, the store's own settings),
 * its node this anvil: SERVICE_PAYMENTS checkouts, each paid by one token transfer mined in a
 * block of its own; from the block's mining to the checkout reading `confirming` over HTTP —
 * the watcher, ChainTransfers, the process manager and the projections all in the path.
 */
async function serviceLatency(node: AnvilNode, token: TestUsdc, store: string): Promise<Row> {
  const bench = await openBenchStore(store, 'chainsvc', { EVM_RPC_URL_ETHEREUM: node.url, EVM_TOKENS_ETHEREUM: `USDC=${token.address}`, CHAIN_POLL_MS: String(POLL_MS) });
  const app = await createApiApp(loadConfig(bench.env, []), { logLevel: 'silent' });
  try {
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/api/v1`;
    const { secret_key } = await app.get(BusinessService).createBusiness({ name: 'Bench live', simulated: false });
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${secret_key}`, 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') }, body: body === undefined ? undefined : JSON.stringify(body) });
      return (await r.json()) as { data: { id: string; url: string; status: string; crypto: { address: string } } };
    };
    await call('POST', '/wallet', { type: 'created' });
    const client = node.viem.createPublicClient({ transport: node.viem.http(node.url, { retryCount: 0 }) });
    let nonce = await client.getTransactionCount({ address: node.address(0), blockTag: 'pending' });
    const latencies: number[] = [];
    for (let i = 0; i <= SERVICE_PAYMENTS; i++) {
      const payment = (await call('POST', '/payments', { amount: 100, currency: 'USD' })).data;
      const checkout = (await call('POST', '/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'USDC', network: 'ethereum' })).data;
      const raw = await node.sign(0, { ...token.transfer(checkout.crypto.address as Hex, 1_000_000n), nonce: nonce++ });
      const minedAt = await mineBlock(node, [raw]);
      for (;;) {
        const status = (await call('GET', `/checkouts/${checkout.id}`)).data.status;
        if (status === 'confirming') break;
        if (now() - minedAt > 30_000) throw new Error(`checkout ${checkout.id} not confirming 30 s after its block`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      if (i > 0) latencies.push(now() - minedAt); // the first is the warm-up
    }
    return { what: `service: block mined → checkout confirming (read model), poll ${POLL_MS} ms`, store, blocksPerSecond: null, transfersPerSecond: null, p50: pct(latencies, 50), p99: pct(latencies, 99), note: `${latencies.length} payments, one block each` };
  } finally {
    await app.close();
    await bench.cleanup();
  }
}

async function openDb(store: string): Promise<{ db: Database; close(): Promise<void> }> {
  const bench = await openBenchStore(store, 'chains');
  const db = store === 'postgres' ? connectPostgres(bench.env.DATABASE_URL as string) : await openEmbedded(bench.env.DATA_DIR as string);
  await migrate(db);
  return { db, close: async () => (await db.close(), await bench.cleanup()) };
}

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function main(): Promise<void> {
  console.log(`bench:chains — ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}; ${ADDRESSES} watched addresses, ${BLOCKS} blocks × ${TRANSFERS} transfers (${TXS} txs), ranges of ${BATCH} blocks, stores ${STORES.join(',')}`);
  const node = await startAnvil({ chainId: 1, automine: false, args: ['--gas-limit', '60000000'] });
  try {
    const token = await deployTestUsdc(node);
    for (let i = 0; i < TXS; i++) await token.mint(node.address(i), 10n ** 30n);
    const watchedList = Array.from({ length: ADDRESSES }, () => node.viem.getAddress(`0x${randomBytes(20).toString('hex')}`));
    const watched = new SetWatched(new Set(watchedList.map((a) => a.toLowerCase())));
    const client = node.viem.createPublicClient({ transport: node.viem.http(node.url, { retryCount: 0 }) });
    const nonces = await Promise.all(Array.from({ length: TXS }, (_, i) => client.getTransactionCount({ address: node.address(i), blockTag: 'pending' })));
    const cursor = { next: 0 };

    // the backlog
    const started = now();
    const backlog = await signBlocks(node, token, watchedList, BLOCKS, nonces, cursor);
    const first = (await node.head()) + 1;
    for (const raws of backlog) await mineBlock(node, raws);
    const last = await node.head();
    const total = BLOCKS * TRANSFERS;
    console.log(`  backlog: blocks ${first}..${last} signed and mined in ${((now() - started) / 1000).toFixed(1)} s`);

    const reader: EvmReader = await createEvmReader({ network: 'ethereum', url: node.url, tokens: [{ asset: 'USDC', contract: token.address }] });
    const ranges: [number, number][] = [];
    for (let from = first; from <= last; from += BATCH) ranges.push([from, Math.min(last, from + BATCH - 1)]);

    const baseline = async (): Promise<number> => {
      const t0 = now();
      let logs = 0;
      for (const [from, to] of ranges) logs += (await client.getLogs({ address: token.address, event: TRANSFER_EVENT, fromBlock: BigInt(from), toBlock: BigInt(to) })).length;
      if (logs !== total) throw new Error(`baseline saw ${logs} logs, expected ${total}`);
      return now() - t0;
    };
    const topic = node.viem.keccak256(node.viem.toHex('Transfer(address,address,uint256)'));
    const rawLogs = async (): Promise<number> => {
      const t0 = now();
      let logs = 0;
      for (const [from, to] of ranges) {
        const params = [{ address: [token.address], topics: [topic], fromBlock: node.viem.toHex(from), toBlock: node.viem.toHex(to) }] as const;
        logs += ((await client.request({ method: 'eth_getLogs', params: params as never })) as unknown[]).length;
      }
      if (logs !== total) throw new Error(`raw eth_getLogs saw ${logs} logs, expected ${total}`);
      return now() - t0;
    };
    const readerAlone = async (): Promise<number> => {
      const t0 = now();
      let transfers = 0;
      for (const [from, to] of ranges) for (const block of await reader.blocks(from, to, watched)) transfers += block.transfers.length;
      if (transfers !== total) throw new Error(`reader saw ${transfers} transfers, expected ${total}`);
      return now() - t0;
    };
    const dbs = new Map<string, { db: Database; close(): Promise<void> }>();
    for (const store of STORES) dbs.set(store, await openDb(store));
    const catchUp = async (db: Database): Promise<{ ms: number; sink: CountingSink; watchedCalls: number }> => {
      await db.exec(`DELETE FROM chain_cursors; DELETE FROM chain_transfers;`);
      const sink = new CountingSink();
      const callsBefore = watched.calls;
      const watcher = new ChainWatcher({ reader, watched, sink, db, startHeight: first, batchBlocks: BATCH, pollMs: POLL_MS });
      const t0 = now();
      watcher.start();
      await waitFor(() => sink.detected_ >= total && watcher.status().height === last, 600_000, 'the watcher to catch up');
      const ms = now() - t0;
      await watcher.stop();
      if (sink.detected_ !== total) throw new Error(`watcher detected ${sink.detected_}, expected ${total}`);
      return { ms, sink, watchedCalls: watched.calls - callsBefore };
    };

    const times = { baseline: [] as number[], raw: [] as number[], reader: [] as number[], watcher: new Map<string, number[]>(STORES.map((s) => [s, []])) };
    let lastCatchUp: { sink: CountingSink; watchedCalls: number } | null = null;
    for (let round = 0; round <= ROUNDS; round++) {
      const b = await baseline();
      const raw = await rawLogs();
      const r = await readerAlone();
      const w: string[] = [];
      for (const store of STORES) {
        const result = await catchUp((dbs.get(store) as { db: Database }).db);
        lastCatchUp = result;
        w.push(`${store} ${result.ms.toFixed(0)} ms`);
        if (round > 0) times.watcher.get(store)?.push(result.ms);
      }
      if (round > 0) {
        times.baseline.push(b);
        times.raw.push(raw);
        times.reader.push(r);
      }
      console.log(`  ${round === 0 ? 'warm-up' : `round ${round}`}: getLogs ${b.toFixed(0)} ms, raw ${raw.toFixed(0)} ms, reader ${r.toFixed(0)} ms, watcher ${w.join(', ')}`);
    }

    const rows: Row[] = [];
    const rate = (ms: number) => ({ blocksPerSecond: (BLOCKS * 1000) / ms, transfersPerSecond: (total * 1000) / ms });
    rows.push({ what: `baseline: viem getLogs, ${BATCH}-block ranges`, store: '-', ...rate(median(times.baseline)), p50: null, p99: null, note: `${total} logs` });
    rows.push({ what: 'baseline: raw eth_getLogs, not decoded', store: '-', ...rate(median(times.raw)), p50: null, p99: null, note: 'the node and JSON alone' });
    rows.push({ what: 'EVM reader alone: blocks()', store: '-', ...rate(median(times.reader)), p50: null, p99: null, note: 'blocks+txs, getLogs, receipts, watched' });
    for (const store of STORES) {
      rows.push({
        what: 'watcher catch-up',
        store,
        ...rate(median(times.watcher.get(store) as number[])),
        p50: null,
        p99: null,
        note: `${lastCatchUp?.sink.confirmed_ ?? 0} confirmed reports, ${lastCatchUp?.watchedCalls ?? 0} watched() calls`,
      });
    }

    // detection latency, caught up
    for (const store of STORES) {
      const { db } = dbs.get(store) as { db: Database };
      await db.exec(`DELETE FROM chain_cursors; DELETE FROM chain_transfers;`);
      const sink = new CountingSink(true);
      const blocks = await signBlocks(node, token, watchedList, LATENCY_BLOCKS, nonces, cursor);
      const watcher = new ChainWatcher({ reader, watched, sink, db, startHeight: (await node.head()) + 1, batchBlocks: BATCH, pollMs: POLL_MS });
      watcher.start();
      await waitFor(() => watcher.status().lagBlocks === 0, 30_000, 'the watcher to start');
      const minedAt = new Map<number, number>();
      for (const raws of blocks) {
        const t = await mineBlock(node, raws);
        minedAt.set(await node.head(), t);
        await new Promise((resolve) => setTimeout(resolve, BLOCK_MS));
      }
      await waitFor(() => sink.firstSeen.size >= LATENCY_BLOCKS * TRANSFERS, 60_000, 'every transfer detected');
      await watcher.stop();
      const latencies: number[] = [];
      const byBlock = await transfersByBlock(reader, watched, [...minedAt.keys()]);
      for (const [height, keys] of byBlock) for (const key of keys) latencies.push((sink.firstSeen.get(key) as number) - (minedAt.get(height) as number));
      rows.push({
        what: `detection latency, poll ${POLL_MS} ms`,
        store,
        blocksPerSecond: null,
        transfersPerSecond: null,
        p50: pct(latencies, 50),
        p99: pct(latencies, 99),
        note: `${LATENCY_BLOCKS} blocks ${BLOCK_MS} ms apart, ${latencies.length} transfers`,
      });
    }
    for (const { close } of dbs.values()) await close();

    // through the whole service: block mined → the checkout `confirming` in the read model (GET /checkouts/{id})
    for (const store of STORES) rows.push(await serviceLatency(node, token, store));

    printTable(rows);
    saveResults('chains', { settings: { ADDRESSES, BLOCKS, TRANSFERS, TXS, BATCH, ROUNDS, POLL_MS, LATENCY_BLOCKS, BLOCK_MS, STORES }, times: { ...times, watcher: Object.fromEntries(times.watcher) }, rows });
  } finally {
    await node.close();
  }
}

/** Which transfers (txHash:index) each height carries, as the reader sees them. */
async function transfersByBlock(reader: EvmReader, watched: WatchedAddresses, heights: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  for (const height of heights) {
    const block = await reader.block(height, watched);
    out.set(height, (block?.transfers ?? []).map((t) => `${t.txHash}:${t.index}`));
  }
  return out;
}

function printTable(rows: Row[]): void {
  const fmt = (n: number | null, digits = 0) => (n === null ? '' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));
  const header = ['what', 'store', 'blocks/s', 'transfers/s', 'p50 ms', 'p99 ms', 'note'];
  const cells = rows.map((r) => [r.what, r.store, fmt(r.blocksPerSecond, 1), fmt(r.transfersPerSecond), fmt(r.p50, 1), fmt(r.p99, 1), r.note]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (row: string[]) => `| ${row.map((c, i) => (i < 2 || i === 6 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log(['', line(header), `|${widths.map((w, i) => (i < 2 || i === 6 ? ` ${'-'.repeat(w)} ` : ` ${'-'.repeat(w - 1)}: `)).join('|')}|`, ...cells.map(line)].join('\n'));
}

runBench(main);
