import type { Database } from '@lib/database';
import type { AssetCode, NetworkId } from '../registry/types';
import type { BlockRef, ObservedTransfer } from './types';

/**
 * What a chain watcher keeps in SQL (migration 006_chain_watch.sql): per network a cursor with
 * its lease (`chain_cursors`), and the transfers it reported that are not final yet
 * (`chain_transfers`). The same SQL runs on PostgreSQL and on the embedded database.
 */

/** A transfer the watcher still follows. */
export interface TrackedTransfer {
  /** As last reported (a re-included transfer carries its new block). */
  transfer: ObservedTransfer;
  /** The count last reported to the sink (0: detected, no count reported yet). */
  confirmations: number;
  /** pending: in a canonical block; orphaned: its block left the chain, not found again yet. */
  status: 'pending' | 'orphaned';
  /** For an orphaned transfer: the height the old chain had reached; it is withdrawn once the rescan passed it. */
  orphanedTip: number | null;
  /** It has a row in chain_transfers (a transfer final within the round it was found in never gets one). */
  stored: boolean;
}

/** A network's durable watch state, as the lease holder loads it. */
export interface WatchState {
  /** Next height to scan; null before the first watcher chose its start. */
  nextHeight: number | null;
  /** The last scanned blocks, oldest first (the newest is the chain tip as scanned). */
  recent: BlockRef[];
  /** By transferKey(). */
  transfers: Map<string, TrackedTransfer>;
}

/** A save found the lease in another worker's hands: nothing was written. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** The key of a transfer within its network: txHash and index. */
export function transferKey(transfer: Pick<ObservedTransfer, 'txHash' | 'index'>): string {
  return `${transfer.txHash}:${transfer.index}`;
}

interface CursorRow {
  next_height: string | number | bigint | null;
  recent_blocks: [number, string][] | string | null;
}

interface TransferRow {
  tx_hash: string;
  idx: number;
  asset: string;
  amount: string | number | bigint;
  to_address: string;
  from_address: string | null;
  reference: string | null;
  block_height: string | number | bigint;
  block_hash: string;
  confirmations: number;
  status: 'pending' | 'orphaned';
  orphaned_tip: string | number | bigint | null;
}

const LEASE_UNTIL = `$3::timestamptz + $4::float8 * interval '1 millisecond'`;

export class ChainWatchStore {
  constructor(readonly db: Database) {}

  /**
   * Takes the network's lease for `owner` (or renews it when `owner` holds it) and loads the
   * network's state; null when another owner's lease has not expired. One transaction: the row
   * is taken FOR UPDATE SKIP LOCKED, so of two workers claiming at once one gets it and the
   * other skips it (and tries again later), as timers are claimed (libs/timers).
   */
  async claim(network: NetworkId, owner: string, now: Date, leaseMs: number): Promise<WatchState | null> {
    return this.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO chain_cursors (network) VALUES ($1) ON CONFLICT (network) DO NOTHING`, [network], 'chain_cursor_ensure');
      const { rows } = await tx.query<CursorRow>(
        `WITH free AS (
           SELECT network FROM chain_cursors
            WHERE network = $1
              AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until IS NULL OR lease_until <= $3::timestamptz)
            FOR UPDATE SKIP LOCKED
         )
         UPDATE chain_cursors c
            SET lease_owner = $2, lease_until = ${LEASE_UNTIL}, updated_at = $3::timestamptz
           FROM free
          WHERE c.network = free.network
         RETURNING c.next_height, c.recent_blocks`,
        [network, owner, now, leaseMs],
        'chain_cursor_claim',
      );
      if (rows.length === 0) return null;
      const transfers = await tx.query<TransferRow>(
        `SELECT tx_hash, idx, asset, amount::text AS amount, to_address, from_address, reference, block_height, block_hash,
                confirmations, status, orphaned_tip
           FROM chain_transfers WHERE network = $1 ORDER BY block_height, tx_hash, idx`,
        [network],
        'chain_transfers_load',
      );
      const recent = typeof rows[0].recent_blocks === 'string' ? (JSON.parse(rows[0].recent_blocks) as [number, string][]) : (rows[0].recent_blocks ?? []);
      return {
        nextHeight: rows[0].next_height === null ? null : Number(rows[0].next_height),
        recent: recent.map(([height, hash]) => ({ height: Number(height), hash })),
        transfers: new Map(transfers.rows.map((row) => [transferKey({ txHash: row.tx_hash, index: Number(row.idx) }), toTracked(network, row)])),
      };
    });
  }

  /**
   * Writes the cursor, the changed transfers and the removed ones in one transaction, and
   * renews the lease; LeaseLostError (nothing written) when `owner` no longer holds it.
   */
  async save(
    network: NetworkId,
    owner: string,
    now: Date,
    leaseMs: number,
    cursor: { nextHeight: number | null; recent: readonly BlockRef[]; caughtUpAt?: Date | null },
    changed: readonly TrackedTransfer[],
    removed: readonly string[],
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      // first: the row lock orders this save against a claim by another worker
      const { rowCount } = await tx.query(
        `UPDATE chain_cursors
            SET next_height = $5, recent_blocks = $6::jsonb, lease_until = ${LEASE_UNTIL}, updated_at = $3::timestamptz,
                caught_up_at = COALESCE($7::timestamptz, caught_up_at)
          WHERE network = $1 AND lease_owner = $2`,
        [network, owner, now, leaseMs, cursor.nextHeight, JSON.stringify(cursor.recent.map((block) => [block.height, block.hash])), cursor.caughtUpAt ?? null],
        'chain_cursor_save',
      );
      if (rowCount === 0) throw new LeaseLostError(`the ${network} watch lease is no longer held by ${owner}`);
      if (removed.length > 0) {
        const split = removed.map((key) => splitKey(key));
        await tx.query(
          `DELETE FROM chain_transfers t
            USING unnest($2::text[], $3::int[]) AS d(tx_hash, idx)
            WHERE t.network = $1 AND t.tx_hash = d.tx_hash AND t.idx = d.idx`,
          [network, split.map(([hash]) => hash), split.map(([, index]) => index)],
          'chain_transfers_delete',
        );
      }
      if (changed.length > 0) {
        await tx.query(
          `INSERT INTO chain_transfers
                  (network, tx_hash, idx, asset, amount, to_address, from_address, reference, block_height, block_hash, confirmations, status, orphaned_tip, detected_at)
           SELECT $1, r.tx_hash, r.idx, r.asset, r.amount, r.to_address, r.from_address, r.reference, r.block_height, r.block_hash,
                  r.confirmations, r.status, r.orphaned_tip, $3::timestamptz
             FROM jsonb_to_recordset($2::jsonb) AS r(tx_hash text, idx int, asset text, amount numeric, to_address text, from_address text,
                  reference text, block_height bigint, block_hash text, confirmations int, status text, orphaned_tip bigint)
           ON CONFLICT (network, tx_hash, idx) DO UPDATE
              SET block_height = EXCLUDED.block_height, block_hash = EXCLUDED.block_hash, confirmations = EXCLUDED.confirmations,
                  status = EXCLUDED.status, orphaned_tip = EXCLUDED.orphaned_tip`,
          [network, JSON.stringify(changed.map(toRow)), now],
          'chain_transfers_upsert',
        );
      }
    });
  }

  /** Extends the lease of `owner` (and records `caughtUpAt` when given); LeaseLostError when it holds it no longer. */
  async renew(network: NetworkId, owner: string, now: Date, leaseMs: number, caughtUpAt: Date | null = null): Promise<void> {
    const { rowCount } = await this.db.query(
      `UPDATE chain_cursors SET lease_until = ${LEASE_UNTIL}, updated_at = $3::timestamptz, caught_up_at = COALESCE($5::timestamptz, caught_up_at)
        WHERE network = $1 AND lease_owner = $2`,
      [network, owner, now, leaseMs, caughtUpAt],
      'chain_cursor_renew',
    );
    if (rowCount === 0) throw new LeaseLostError(`the ${network} watch lease is no longer held by ${owner}`);
  }

  /** Gives the lease up (a clean stop): another worker can take the network at once. */
  async release(network: NetworkId, owner: string): Promise<void> {
    await this.db.query(`UPDATE chain_cursors SET lease_owner = NULL, lease_until = NULL WHERE network = $1 AND lease_owner = $2`, [network, owner]);
  }

  /**
   * How far the network has been read, as a time (decision 0025, addendum of 2026-11-29, lateness
   * at mining): `caughtUpAt` is when its watcher last asked the node for its head and then had
   * scanned every block up to that head, so every block the node had then has been read. Null
   * when nobody ever watched the network; `caughtUpAt` null when its watcher never caught up.
   */
  async readThrough(network: NetworkId): Promise<{ caughtUpAt: Date | null } | null> {
    const { rows } = await this.db.query<{ caught_up_at: Date | string | null }>(`SELECT caught_up_at FROM chain_cursors WHERE network = $1`, [network], 'chain_cursor_read_through');
    if (rows.length === 0) return null;
    return { caughtUpAt: rows[0].caught_up_at === null ? null : new Date(rows[0].caught_up_at) };
  }

  /** Who holds the network's lease and until when (null: nobody ever watched it). */
  async lease(network: NetworkId): Promise<{ owner: string | null; until: Date | null } | null> {
    const { rows } = await this.db.query<{ lease_owner: string | null; lease_until: Date | string | null }>(
      `SELECT lease_owner, lease_until FROM chain_cursors WHERE network = $1`,
      [network],
    );
    if (rows.length === 0) return null;
    return { owner: rows[0].lease_owner, until: rows[0].lease_until === null ? null : new Date(rows[0].lease_until) };
  }
}

function splitKey(key: string): [string, number] {
  const at = key.lastIndexOf(':');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}

function toRow(tracked: TrackedTransfer) {
  const t = tracked.transfer;
  return {
    tx_hash: t.txHash,
    idx: t.index,
    asset: t.asset,
    amount: t.amount.toString(),
    to_address: t.to,
    from_address: t.from,
    reference: t.reference ?? null,
    block_height: t.block.height,
    block_hash: t.block.hash,
    confirmations: tracked.confirmations,
    status: tracked.status,
    orphaned_tip: tracked.orphanedTip,
  };
}

function toTracked(network: NetworkId, row: TransferRow): TrackedTransfer {
  return {
    transfer: {
      network,
      txHash: row.tx_hash,
      index: Number(row.idx),
      asset: row.asset as AssetCode,
      amount: BigInt(row.amount),
      to: row.to_address,
      from: row.from_address,
      block: { height: Number(row.block_height), hash: row.block_hash },
      ...(row.reference === null ? {} : { reference: row.reference }),
    },
    confirmations: Number(row.confirmations),
    status: row.status,
    orphanedTip: row.orphaned_tip === null ? null : Number(row.orphaned_tip),
    stored: true,
  };
}
