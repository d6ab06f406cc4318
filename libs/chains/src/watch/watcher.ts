import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Database } from '@lib/database';
import { defaultRegistry } from '../registry';
import type { ChainRegistry } from '../registry/registry';
import type { NetworkId } from '../registry/types';
import type { BlockRef, ChainReader, ObservedTransfer, ScannedBlock, TransferSink, WatchedAddresses } from './types';
import { ChainWatchStore, LeaseLostError, type TrackedTransfer, type WatchState, transferKey } from './watch-store';

export interface ChainWatcherOptions {
  readonly reader: ChainReader;
  readonly watched: WatchedAddresses;
  readonly sink: TransferSink;
  /** Where the cursor, the lease and the transfers not yet final are kept (migration 006). */
  readonly db: Database;
  /** Confirmations required and block times (default: defaultRegistry). */
  readonly registry?: ChainRegistry;
  /** Confirmations after which a transfer is final (default: the registry's for the network). */
  readonly confirmationsRequired?: number;
  /**
   * Where the network's first watcher starts when no cursor is stored: a height, or 'head'
   * (default: the node's newest block; transfers before it are not looked for).
   */
  readonly startHeight?: number | 'head';
  /** Blocks read per round at most (default 20). */
  readonly batchBlocks?: number;
  /** Pause between looks at the head once caught up (default: a quarter of the block time, 200 ms – 3 s). */
  readonly pollMs?: number;
  /**
   * Pause between looks at the mempool of the addresses the sink names, when the reader and the
   * sink both do (default ten times pollMs, 1 s – 30 s): one request an address, so slower than blocks.
   */
  readonly mempoolPollMs?: number;
  /** Addresses whose mempool is asked for at once in a look (default 8): many open checkouts do not hold the blocks back one request at a time. */
  readonly mempoolConcurrency?: number;
  /** How long the lease holds without renewal (default 30 s of wall time); renewed every third of it. */
  readonly leaseMs?: number;
  /** Back-off after a failed round: backoffMs · 2^(failures − 1), capped at backoffMaxMs (defaults 1 s, 60 s). */
  readonly backoffMs?: number;
  readonly backoffMaxMs?: number;
  /**
   * Blocks remembered one by one behind the tip, to walk a reorg back to the common ancestor
   * (default 64; never fewer than confirmations required + 1). Older blocks are remembered at
   * doubling distances (about 30 more), so a deeper reorg rewinds to a block both chains share
   * at most ~4× deeper than the fork (rescanning a little more), never past a transfer.
   */
  readonly reorgWindow?: number;
  /** This watcher's lease owner id (default host:pid:random). Unique per watcher. */
  readonly owner?: string;
  /** Wall time of leases (tests inject theirs); the lease holders' clocks must agree (NTP), as for timers. */
  readonly now?: () => Date;
  /** Told of every failed round (logging). */
  readonly onError?: (error: unknown) => void;
  /** Told of every reorg found. */
  readonly onReorg?: (reorg: ReorgInfo) => void;
}

export interface ReorgInfo {
  readonly network: NetworkId;
  /** The newest block the watcher had scanned on the old chain. */
  readonly oldTip: number;
  /** The newest block both chains share (null: none in the remembered window). */
  readonly ancestor: number | null;
  /** Blocks of the old chain that left it. */
  readonly depth: number;
  /** Transfers whose blocks left it (withdrawn later unless the rescan finds them again). */
  readonly orphaned: number;
}

/** What a watcher is doing, for /health and metrics. */
export interface ChainWatcherStatus {
  readonly network: NetworkId;
  /** start() called and stop() not yet. */
  readonly running: boolean;
  /** This watcher holds the network's lease (it is the one scanning). */
  readonly leaseHeld: boolean;
  /** The newest block scanned (null before the first). */
  readonly height: number | null;
  /** The node's head as last read (null before the first read). */
  readonly head: number | null;
  /** head − height (null when either is unknown). */
  readonly lagBlocks: number | null;
  readonly confirmationsRequired: number;
  /** Transfers reported and not final yet (pending), and those whose block left the chain (orphaned). */
  readonly pending: number;
  readonly orphaned: number;
  /** The last failure's message, kept after recovery (see lastErrorAt, consecutiveFailures). */
  readonly lastError: string | null;
  readonly lastErrorAt: Date | null;
  /** Failed rounds since the last good one (0: healthy). */
  readonly consecutiveFailures: number;
  /** When the next attempt runs while backing off (null when not backing off). */
  readonly backingOffUntil: Date | null;
  /** The last round that reached the node and the database. */
  readonly lastSuccessAt: Date | null;
  /**
   * When this watcher last asked the node for the head it then scanned up to: every block the node
   * had then has been read (null before it first caught up). Live quotes end once it passes their
   * end (decision 0025, addendum of 2026-11-29).
   */
  readonly caughtUpAt: Date | null;
  /** Since start: blocks scanned, transfers detected, confirmations reported, withdrawals, reorgs. */
  readonly blocksScanned: number;
  readonly transfersDetected: number;
  readonly confirmationsReported: number;
  readonly transfersWithdrawn: number;
  readonly reorgs: number;
  /** Addresses whose mempool was looked at and reported (readers and sinks that do: decision 0023, addendum 2026-11-29). */
  readonly mempoolLooks: number;
  readonly lastReorg: (ReorgInfo & { readonly at: Date }) | null;
}

/**
 * Watches ONE network through a ChainReader (decision 0021). While it holds the network's lease
 * (one watcher per network across every worker), it reads the head, scans blocks from its
 * durable cursor up to the head in batches, and reports to the sink:
 *
 * - detected: a transfer to a watched address in a scanned block;
 * - confirmed: its count, head − height + 1 with the head as scanned (a block not yet checked
 *   for a reorg does not count), capped at the required count, each time it grows; once it
 *   reaches the required count the transfer is final and no longer followed;
 * - withdrawn: its block left the chain in a reorg and the new chain, scanned past the height
 *   the old one had reached, does not carry it. A transfer the new chain carries is detected
 *   again with its new block, and its count starts again from there (at another place in its
 *   transaction: the old place is let go, not withdrawn; of another amount: withdrawn, then
 *   detected with the new amount).
 *
 * Reorgs: each block's parentHash must be the hash of the block scanned before it (and, with
 * nothing new to scan, the newest scanned block must still be the node's); otherwise the watcher
 * walks its remembered blocks back to the newest one the node still has, rewinds the cursor
 * there and marks the transfers above it orphaned.
 *
 * Durability: the cursor, the remembered blocks and the transfers not yet final are written in
 * one transaction after the sink calls of a round succeeded, so reports are at least once (a
 * crash between the two repeats them; the sink is idempotent by (network, txHash, index)), and
 * a transfer is never lost: the cursor passes a block only once its reports are made.
 *
 * Failures (node unreachable, sink or database errors) end the round: the watcher reloads its
 * state from the database and tries again after an exponential back-off; status() shows it.
 */
export class ChainWatcher {
  readonly network: NetworkId;
  readonly owner: string;
  private readonly store: ChainWatchStore;
  private readonly required: number;
  private readonly batchBlocks: number;
  private readonly pollMs: number;
  private readonly mempoolPollMs: number;
  private readonly mempoolConcurrency: number;
  private readonly leaseMs: number;
  private readonly standbyMs: number;
  private readonly window: number;
  private readonly now: () => Date;

  private state: WatchState | null = null;
  private leaseHeld = false;
  private leaseRenewAt = 0;
  /** Transfers changed / removed since the last save. */
  private readonly changed = new Set<string>();
  private readonly removed = new Set<string>();
  private cursorMoved = false;
  /** The orphaned transfers by transaction, recipient and coin, built when a round first needs it (null: not yet). */
  private orphans: Map<string, string[]> | null = null;

  private loop: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;

  private head: number | null = null;
  private failures = 0;
  private lastError: string | null = null;
  private lastErrorAt: Date | null = null;
  private backingOffUntil: Date | null = null;
  private lastSuccessAt: Date | null = null;
  private caughtUpAt: Date | null = null;
  private counters = { blocksScanned: 0, transfersDetected: 0, confirmationsReported: 0, transfersWithdrawn: 0, reorgs: 0, mempoolLooks: 0 };
  /** When the mempool is looked at next (epoch ms). */
  private mempoolDueAt = 0;
  private lastReorg: (ReorgInfo & { at: Date }) | null = null;
  /** The state's figures as last seen (kept while the state is reloaded after a failure). */
  private known: { height: number | null; pending: number; orphaned: number } = { height: null, pending: 0, orphaned: 0 };

  constructor(private readonly options: ChainWatcherOptions) {
    const registry = options.registry ?? defaultRegistry;
    this.network = options.reader.network;
    this.store = new ChainWatchStore(options.db);
    this.required = options.confirmationsRequired ?? registry.confirmationsRequired(this.network);
    if (!Number.isSafeInteger(this.required) || this.required < 1) throw new RangeError(`confirmationsRequired must be a positive integer, got ${this.required}`);
    this.batchBlocks = Math.max(1, options.batchBlocks ?? 20);
    this.pollMs = options.pollMs ?? Math.min(3000, Math.max(200, Math.round(registry.blockTimeMs(this.network) / 4)));
    this.mempoolPollMs = options.mempoolPollMs ?? Math.min(30_000, Math.max(1000, this.pollMs * 10));
    this.mempoolConcurrency = Math.max(1, options.mempoolConcurrency ?? 8);
    this.leaseMs = options.leaseMs ?? 30_000;
    this.standbyMs = Math.max(this.pollMs, Math.round(this.leaseMs / 3));
    this.window = Math.max(options.reorgWindow ?? 64, this.required + 1);
    this.now = options.now ?? (() => new Date());
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  }

  /** Starts watching (in the background); a watcher without the lease waits for it. */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.run();
  }

  /**
   * Ends the loop after the round in progress and gives the lease up, so another worker takes
   * the network at once. `releaseLease: false` leaves the lease to expire, as a crash would.
   */
  async stop(options: { releaseLease?: boolean } = {}): Promise<void> {
    if (!this.loop) return;
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
    if (this.leaseHeld && options.releaseLease !== false) await this.store.release(this.network, this.owner).catch((error: unknown) => this.options.onError?.(error));
    this.leaseHeld = false;
    this.state = null;
  }

  /** Looks at the head now instead of after the poll interval (e.g. on a new-block notification). */
  kick(): void {
    this.wake?.();
  }

  status(): ChainWatcherStatus {
    if (this.state) this.known = summary(this.state);
    const { height, pending, orphaned } = this.known;
    const backingOff = this.backingOffUntil && this.backingOffUntil.getTime() > Date.now() ? this.backingOffUntil : null;
    return {
      network: this.network,
      running: this.loop !== null && !this.stopping,
      leaseHeld: this.leaseHeld,
      height,
      head: this.head,
      lagBlocks: height !== null && this.head !== null ? Math.max(0, this.head - height) : null,
      confirmationsRequired: this.required,
      pending,
      orphaned,
      lastError: this.lastError,
      lastErrorAt: this.lastErrorAt,
      consecutiveFailures: this.failures,
      backingOffUntil: backingOff,
      lastSuccessAt: this.lastSuccessAt,
      caughtUpAt: this.caughtUpAt,
      ...this.counters,
      lastReorg: this.lastReorg,
    };
  }

  // ---- the loop ----------------------------------------------------------------------------

  private async run(): Promise<void> {
    while (!this.stopping) {
      let delay: number;
      try {
        delay = await this.round();
        this.failures = 0;
        this.backingOffUntil = null;
        this.lastSuccessAt = new Date();
      } catch (error) {
        if (this.state) this.known = summary(this.state);
        this.state = null; // memory may be ahead of the database: reload before the next round
        this.changed.clear();
        this.removed.clear();
        if (error instanceof LeaseLostError) {
          this.leaseHeld = false;
          delay = 0;
        } else {
          this.failures++;
          delay = Math.min(this.options.backoffMaxMs ?? 60_000, (this.options.backoffMs ?? 1000) * 2 ** Math.min(30, this.failures - 1));
          this.lastError = errorText(error);
          this.lastErrorAt = new Date();
          this.backingOffUntil = new Date(Date.now() + delay);
          this.options.onError?.(error);
        }
      }
      await this.sleep(delay);
    }
  }

  /** One round; resolves how long to wait before the next (0: more to scan). */
  private async round(): Promise<number> {
    if (!this.state) {
      const now = this.now();
      const state = await this.store.claim(this.network, this.owner, now, this.leaseMs);
      this.leaseHeld = state !== null;
      if (!state) return this.standbyMs;
      this.state = state;
      this.leaseRenewAt = now.getTime() + this.leaseMs / 3;
    }
    const state = this.state;
    const askedAt = this.now(); // every block the node had by now is at or below the head it answers
    const head = await this.options.reader.head();
    this.head = head;
    if (state.nextHeight === null) {
      const start = this.options.startHeight ?? 'head';
      state.nextHeight = start === 'head' ? head : start;
      this.cursorMoved = true;
    }

    let delay: number;
    let caughtUp = true;
    if (state.nextHeight > head) {
      // nothing new: is the newest scanned block still the node's?
      const tip = lastOf(state.recent);
      if (tip && (await this.options.reader.blockHash(tip.height)) !== tip.hash) {
        await this.rewind(state);
        return 0;
      }
      await this.settle(state, true);
      delay = this.pollMs;
    } else {
      const from = state.nextHeight;
      const to = Math.min(head, from + this.batchBlocks - 1);
      const blocks = await this.read(from, to);
      this.orphans = null;
      for (const block of blocks) {
        if (block.height < from || block.height > to) throw new Error(`the ${this.network} reader answered block ${block.height} for ${from}..${to}`);
        const tip = lastOf(state.recent);
        if (tip && block.parentHash !== tip.hash) {
          await this.rewind(state);
          return 0;
        }
        for (const transfer of oneTransferPerRecipient(block.transfers)) await this.detected(state, block, transfer);
        state.recent.push({ height: block.height, hash: block.hash });
        if (state.recent.length > this.window) state.recent = thinOut(state.recent, this.window);
        state.nextHeight = block.height + 1;
        this.counters.blocksScanned++;
      }
      // a range below the head without any block: skipped heights (slots); the next block's
      // parentHash check catches a block the node failed to serve, and the walk back rescans it
      if (blocks.length === 0 && to < head) state.nextHeight = to + 1;
      if (state.nextHeight !== from) this.cursorMoved = true;
      caughtUp = state.nextHeight > head;
      await this.settle(state, caughtUp);
      delay = caughtUp || blocks.length === 0 ? this.pollMs : 0;
    }
    await this.save(state, caughtUp ? askedAt : null);
    if (caughtUp) this.caughtUpAt = askedAt;
    if (caughtUp) await this.lookAtMempool();
    return delay;
  }

  /**
   * Once caught up, at most every mempoolPollMs: the mempool of each address the sink names
   * (decision 0023, addendum 2026-11-29), reported to the sink — after the blocks, so a
   * transaction mined meanwhile is in the snapshot's `mined` or detected already; up to
   * mempoolConcurrency addresses at once. Best effort: a failure is told to onError, no address
   * is asked for after it in this look, and the blocks go on (the sink's holds are bounded in time).
   */
  private async lookAtMempool(): Promise<void> {
    const { reader, sink } = this.options;
    if (!reader.mempool || !sink.mempool || !sink.awaitingAddresses) return;
    const now = Date.now();
    if (now < this.mempoolDueAt) return;
    this.mempoolDueAt = now + this.mempoolPollMs;
    const look = async (address: string): Promise<void> => {
      const snapshot = await reader.mempool!(address);
      if (snapshot.network !== this.network || snapshot.address !== address) throw new Error(`the ${this.network} reader answered the mempool of ${snapshot.network} ${snapshot.address} for ${address}`);
      await sink.mempool!(snapshot);
      this.counters.mempoolLooks++;
    };
    try {
      const addresses = await sink.awaitingAddresses(this.network);
      let next = 0;
      let failed = false;
      const lane = async (): Promise<void> => {
        while (!this.stopping && !failed && next < addresses.length) {
          try {
            await look(addresses[next++]);
          } catch (error) {
            failed = true;
            throw error;
          }
        }
      };
      const lanes = await Promise.allSettled(Array.from({ length: Math.min(this.mempoolConcurrency, addresses.length) }, lane));
      const refused = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
      if (refused) throw refused.reason;
    } catch (error) {
      this.lastError = errorText(error);
      this.lastErrorAt = new Date();
      this.options.onError?.(error);
    }
  }

  private async read(from: number, to: number): Promise<readonly ScannedBlock[]> {
    const { reader, watched } = this.options;
    if (reader.blocks) return reader.blocks(from, to, watched);
    const blocks: ScannedBlock[] = [];
    for (let height = from; height <= to; height++) {
      const block = await reader.block(height, watched);
      if (block) blocks.push(block);
    }
    return blocks;
  }

  private async detected(state: WatchState, block: ScannedBlock, transfer: ObservedTransfer): Promise<void> {
    if (transfer.network !== this.network) throw new Error(`the ${this.network} reader reported a transfer on ${transfer.network}`);
    const key = transferKey(transfer);
    const known = state.transfers.get(key);
    if (known && known.status === 'pending' && known.transfer.block.hash === block.hash) return;
    const earlier = this.orphanedPartOf(state, transfer);
    if (earlier) {
      // the transaction mined again after a reorg, its transfer to this address in this coin at
      // another place in it or of another amount (a CPI or a log whose place and amount the
      // state it ran on decided): a sink knows a transfer by its transaction, so the old place
      // must not be withdrawn once the new one is reported (that would take the transaction
      // away while it is in the chain), and an amount that changed must replace the old one,
      // withdrawn first (a new detection of a known transaction changes nothing)
      if (earlier.tracked.transfer.amount !== transfer.amount) {
        await this.options.sink.withdrawn(earlier.tracked.transfer);
        this.counters.transfersWithdrawn++;
      }
      if (earlier.key !== key) this.forget(state, earlier.key);
    }
    await this.options.sink.detected(transfer);
    this.counters.transfersDetected++;
    state.transfers.set(key, { transfer, confirmations: 0, status: 'pending', orphanedTip: null, stored: known?.stored ?? false });
    this.changed.add(key);
    this.removed.delete(key);
  }

  /**
   * The orphaned transfer of the same transaction to the same address in the same coin as
   * `transfer`, when it sits at another place in the transaction or moved another amount (null
   * otherwise: the same key and amount is the plain move the sink is told of by a new detection).
   */
  private orphanedPartOf(state: WatchState, transfer: ObservedTransfer): { key: string; tracked: TrackedTransfer } | null {
    if (this.orphans === null) {
      this.orphans = new Map();
      for (const [key, tracked] of state.transfers) {
        if (tracked.status !== 'orphaned') continue;
        const part = recipientKey(tracked.transfer);
        this.orphans.set(part, [...(this.orphans.get(part) ?? []), key]);
      }
    }
    const key = transferKey(transfer);
    for (const otherKey of this.orphans.get(recipientKey(transfer)) ?? []) {
      const tracked = state.transfers.get(otherKey);
      if (tracked?.status !== 'orphaned') continue; // found again or let go since the index was built
      if (otherKey !== key || tracked.transfer.amount !== transfer.amount) return { key: otherKey, tracked };
    }
    return null;
  }

  /** Reports grown confirmations, lets final transfers go, and (caught up) withdraws orphans the new chain did not carry. */
  private async settle(state: WatchState, caughtUp: boolean): Promise<void> {
    const tip = lastOf(state.recent);
    for (const [key, tracked] of state.transfers) {
      if (tracked.status === 'pending') {
        if (!tip) continue;
        const count = Math.min(this.required, tip.height - tracked.transfer.block.height + 1);
        if (count <= tracked.confirmations) continue;
        await this.options.sink.confirmed(tracked.transfer, count);
        this.counters.confirmationsReported++;
        tracked.confirmations = count;
        if (count >= this.required) this.forget(state, key);
        else this.changed.add(key);
      } else if (caughtUp && tip && tip.height >= (tracked.orphanedTip ?? 0)) {
        await this.options.sink.withdrawn(tracked.transfer);
        this.counters.transfersWithdrawn++;
        this.forget(state, key);
      }
    }
  }

  private forget(state: WatchState, key: string): void {
    const stored = state.transfers.get(key)?.stored ?? true;
    state.transfers.delete(key);
    this.changed.delete(key);
    if (stored) this.removed.add(key);
  }

  /**
   * The chain the watcher scanned is no longer the node's: walk the remembered blocks back to
   * the newest the node still has, rewind the cursor to just above it, mark the transfers above
   * it orphaned, and save that at once.
   */
  private async rewind(state: WatchState): Promise<void> {
    const oldTip = lastOf(state.recent) as BlockRef;
    let ancestor: BlockRef | null = null;
    for (let i = state.recent.length - 1; i >= 0; i--) {
      const block = state.recent[i];
      if ((await this.options.reader.blockHash(block.height)) === block.hash) {
        ancestor = block;
        state.recent.length = i + 1;
        break;
      }
    }
    // older than every remembered block, even the first one scanned: rescan from that one
    const floor = ancestor ? ancestor.height : state.recent[0].height - 1;
    if (!ancestor) state.recent.length = 0;
    state.nextHeight = floor + 1;
    this.cursorMoved = true;
    let orphaned = 0;
    for (const [key, tracked] of state.transfers) {
      if (tracked.transfer.block.height <= floor) continue;
      tracked.orphanedTip = Math.max(tracked.orphanedTip ?? 0, oldTip.height);
      if (tracked.status === 'pending') orphaned++;
      tracked.status = 'orphaned';
      this.changed.add(key);
    }
    if (oldTip.height > floor) {
      const reorg: ReorgInfo = { network: this.network, oldTip: oldTip.height, ancestor: ancestor?.height ?? null, depth: oldTip.height - floor, orphaned };
      this.counters.reorgs++;
      this.lastReorg = { ...reorg, at: new Date() };
      this.options.onReorg?.(reorg);
    }
    await this.save(state);
  }

  /**
   * Writes what changed, and renews the lease when due. `caughtUpAt` (the round scanned up to the
   * head asked for then) is written at every caught-up round, with the lease's renewal when
   * nothing else changed: live quotes wait for it to pass their end (decision 0025, addendum of
   * 2026-11-29, lateness at mining), so it is at most one poll old while the watcher keeps up.
   */
  private async save(state: WatchState, caughtUpAt: Date | null = null): Promise<void> {
    const now = this.now();
    if (!this.cursorMoved && this.changed.size === 0 && this.removed.size === 0) {
      if (caughtUpAt === null && now.getTime() < this.leaseRenewAt) return;
      await this.store.renew(this.network, this.owner, now, this.leaseMs, caughtUpAt);
    } else {
      const changed: TrackedTransfer[] = [];
      for (const key of this.changed) {
        const tracked = state.transfers.get(key);
        if (tracked) changed.push(tracked);
      }
      await this.store.save(this.network, this.owner, now, this.leaseMs, { ...state, caughtUpAt }, changed, [...this.removed]);
      for (const tracked of changed) tracked.stored = true;
      this.changed.clear();
      this.removed.clear();
      this.cursorMoved = false;
    }
    this.leaseRenewAt = now.getTime() + this.leaseMs / 3;
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref?.();
      this.wake = done;
    });
  }
}

function summary(state: WatchState): { height: number | null; pending: number; orphaned: number } {
  const tip = lastOf(state.recent);
  let pending = 0;
  let orphaned = 0;
  for (const tracked of state.transfers.values()) {
    if (tracked.status === 'pending') pending++;
    else orphaned++;
  }
  return { height: tip?.height ?? (state.nextHeight !== null ? state.nextHeight - 1 : null), pending, orphaned };
}

/**
 * The blocks to remember: each of the last `window` heights behind the tip, then the oldest
 * block of each distance band [2^k, 2^(k+1)) from the tip. Keeping the oldest of a band lets
 * blocks age from one band into the next, so bands stay filled at doubling distances, and the
 * first block ever scanned is never dropped.
 */
export function thinOut(recent: readonly BlockRef[], window: number): BlockRef[] {
  const tip = recent[recent.length - 1].height;
  const kept: BlockRef[] = [];
  const bands = new Set<number>();
  for (const block of recent) {
    const distance = tip - block.height;
    if (distance < window) kept.push(block);
    else {
      const band = Math.floor(Math.log2(distance));
      if (bands.has(band)) continue;
      bands.add(band);
      kept.push(block);
    }
  }
  return kept;
}

function lastOf<T>(list: readonly T[]): T | undefined {
  return list[list.length - 1];
}

/**
 * A failure in one line for status() (which /health shows) and logs: the first line of the
 * message (viem's short one), node URLs cut to their origin — a provider's URL often carries its
 * API key in the path, the query or the user part, which must never be shown or logged.
 */
export function errorText(error: unknown): string {
  let text: string;
  if (error instanceof Error) {
    const short = (error as Error & { shortMessage?: unknown }).shortMessage;
    const message = typeof short === 'string' ? short : error.message;
    text = `${error.name}: ${message.split('\n')[0]}`;
  } else {
    text = String(error);
  }
  return redactUrls(text).slice(0, 500);
}

/** Every URL in `text` reduced to its origin (scheme, host, port): no user, path or query. */
export function redactUrls(text: string): string {
  return text.replace(/\b(?:https?|wss?):\/\/[^\s"'<>]+/g, (url) => {
    try {
      return new URL(url).origin;
    } catch {
      return '[url]';
    }
  });
}

/**
 * The transfers of a block with those of one transaction to one address in one coin taken as one
 * (their amounts summed; the first one's index; the sender when they share it): a transaction is
 * mined, confirmed and withdrawn whole, and a checkout knows a transfer by its transaction hash,
 * so two Transfer logs to the same address in one transaction (a batched payout, a router) must
 * credit both amounts, not the first alone (live EVM audit, 2026-11-28). The same block always
 * merges the same way, so the key (network, hash, first index) of a repeated report is the same.
 */
export function oneTransferPerRecipient(transfers: readonly ObservedTransfer[]): ObservedTransfer[] {
  const merged = new Map<string, ObservedTransfer>();
  for (const transfer of transfers) {
    const key = recipientKey(transfer);
    const earlier = merged.get(key);
    merged.set(
      key,
      earlier === undefined ? transfer : { ...earlier, amount: earlier.amount + transfer.amount, from: earlier.from === transfer.from ? earlier.from : null, reference: earlier.reference ?? transfer.reference },
    );
  }
  return [...merged.values()];
}

/** What makes transfers one (oneTransferPerRecipient): their transaction, recipient and coin. */
function recipientKey(transfer: ObservedTransfer): string {
  return `${transfer.txHash}|${transfer.to.toLowerCase()}|${transfer.asset}`;
}
