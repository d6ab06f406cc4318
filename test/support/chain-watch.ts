import { type NetworkFamily, type ObservedTransfer, type TransferSink, type WatchedAddresses, transferKey } from '@lib/chains';
import { type Database, connectPostgres, migrate, openEmbedded } from '@lib/database';
import type { StoreKind } from './fixtures';
import { createTestDatabase } from './postgres';
import { tempDir } from './temp-dir';

/** A fresh migrated SQL database of `kind` (PGlite in a temp folder, or a new PostgreSQL database). */
export async function openWatchDatabase(kind: StoreKind, prefix = 'watch'): Promise<{ db: Database; close(): Promise<void> }> {
  if (kind === 'embedded') {
    const dir = tempDir(`${prefix}-`);
    const db = await openEmbedded(dir.path);
    await migrate(db);
    return { db, close: async () => (await db.close(), dir.remove()) };
  }
  const database = await createTestDatabase(prefix);
  const db = connectPostgres(database.url);
  await migrate(db);
  return { db, close: async () => (await db.close(), await database.drop()) };
}

/**
 * The watch database of a `describe` block, and the watchers its tests start (`suite.watch(w)`).
 * Registers the hooks: after each test every watcher it started is stopped, and each test starts
 * from empty tables — one database for the block, emptied after each test, or with `perTest` a
 * new database for each test. Read `suite.db` inside tests and hooks, not while the block is collected.
 */
export function watchSuite(kind: StoreKind, prefix: string, options: { perTest?: boolean } = {}): { readonly db: Database; watch<W extends { stop(): Promise<void> }>(watcher: W): W } {
  let opened: { db: Database; close(): Promise<void> } | undefined;
  const watchers: { stop(): Promise<void> }[] = [];
  const open = async () => void (opened = await openWatchDatabase(kind, prefix));
  const close = async () => {
    const running = opened;
    opened = undefined;
    await running?.close();
  };
  if (options.perTest) beforeEach(open);
  else beforeAll(open);
  afterEach(async () => {
    for (const watcher of watchers.splice(0)) await watcher.stop();
    if (options.perTest) await close();
    else await opened?.db.exec(`DELETE FROM chain_cursors; DELETE FROM chain_transfers;`);
  });
  if (!options.perTest) afterAll(close);
  return {
    get db(): Database {
      if (opened === undefined) throw new Error('watchSuite: no database (read suite.db inside tests and hooks)');
      return opened.db;
    },
    watch(watcher) {
      watchers.push(watcher);
      return watcher;
    },
  };
}

/** Addresses of one family the service watches, compared case-insensitively; counts the calls. */
export class SetWatched implements WatchedAddresses {
  private readonly set = new Set<string>();
  calls = 0;
  asked = 0;

  constructor(
    addresses: Iterable<string> = [],
    private readonly family: NetworkFamily = 'evm',
  ) {
    for (const address of addresses) this.add(address);
  }

  add(address: string): this {
    this.set.add(address.toLowerCase());
    return this;
  }

  get size(): number {
    return this.set.size;
  }

  async watched(family: NetworkFamily, addresses: readonly string[]): Promise<ReadonlySet<string>> {
    this.calls++;
    this.asked += addresses.length;
    if (family !== this.family) return new Set();
    return new Set(addresses.filter((address) => this.set.has(address.toLowerCase())));
  }
}

export interface LedgerEntry {
  transfer: ObservedTransfer;
  detections: number;
  /** Every count reported, in order. */
  confirmations: number[];
  withdrawals: number;
}

/**
 * A sink that records every call, and an idempotent ledger by (network, txHash, index): what
 * the payments capability would keep. `onDetected` sees each call as it comes (latency).
 */
export class RecordingSink implements TransferSink {
  readonly calls: { kind: 'detected' | 'confirmed' | 'withdrawn'; transfer: ObservedTransfer; confirmations?: number }[] = [];
  readonly ledger = new Map<string, LedgerEntry>();
  fail: Error | null = null;

  constructor(private readonly onDetected?: (transfer: ObservedTransfer) => void) {}

  static key(transfer: Pick<ObservedTransfer, 'network' | 'txHash' | 'index'>): string {
    return `${transfer.network}/${transferKey(transfer)}`;
  }

  entry(network: string, txHash: string, index: number): LedgerEntry | undefined {
    return this.ledger.get(`${network}/${txHash.toLowerCase()}:${index}`);
  }

  private record(transfer: ObservedTransfer): LedgerEntry {
    const key = RecordingSink.key(transfer);
    let entry = this.ledger.get(key);
    if (!entry) this.ledger.set(key, (entry = { transfer, detections: 0, confirmations: [], withdrawals: 0 }));
    entry.transfer = transfer;
    return entry;
  }

  async detected(transfer: ObservedTransfer): Promise<void> {
    if (this.fail) throw this.fail;
    this.onDetected?.(transfer);
    this.calls.push({ kind: 'detected', transfer });
    this.record(transfer).detections++;
  }

  async confirmed(transfer: ObservedTransfer, confirmations: number): Promise<void> {
    if (this.fail) throw this.fail;
    this.calls.push({ kind: 'confirmed', transfer, confirmations });
    this.record(transfer).confirmations.push(confirmations);
  }

  async withdrawn(transfer: ObservedTransfer): Promise<void> {
    if (this.fail) throw this.fail;
    this.calls.push({ kind: 'withdrawn', transfer });
    this.record(transfer).withdrawals++;
  }
}
