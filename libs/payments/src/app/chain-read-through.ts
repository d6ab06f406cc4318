import { Inject, Injectable } from '@nestjs/common';
import { ChainWatchStore, NetworkId } from '@lib/chains';
import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';

/** How long past its end a live quote (or payment) waits at most for its network's watcher. */
export const READ_THROUGH_WAIT_MAX_MS = 60 * 60_000;
/** The shortest and the longest pause between two looks while it waits. */
const LOOK_MIN_MS = 1000;
const LOOK_MAX_MS = 60_000;

/** How far one network has been read (ChainWatchStore.readThrough); null: nobody ever watched it. */
export type NetworkReadThrough = { caughtUpAt: Date | null } | null;

/**
 * Pure: whether something live ending at `endsAt` must wait for the chains, and until when
 * (decision 0025, addendum of 2026-11-29, lateness at mining). A transfer is late when it was
 * mined after the quote's end, not when the service read it: so a live quote ends only once the
 * watcher of each network it waits for has read every block the node had at the end. Null: end it
 * now — every network read through `endsAt`, never watched (nothing will read it), or waited for
 * READ_THROUGH_WAIT_MAX_MS already (a watcher down that long: what it reads later is late, in
 * review, as before). Otherwise the time of the next look: soon after the end, further apart as
 * the wait grows.
 */
export function nextLookBeforeEnd(endsAt: Date, now: Date, networks: readonly NetworkReadThrough[]): Date | null {
  const behind = networks.some((n) => n !== null && (n.caughtUpAt === null || n.caughtUpAt.getTime() < endsAt.getTime()));
  if (!behind) return null;
  const waited = Math.max(0, now.getTime() - endsAt.getTime());
  if (waited >= READ_THROUGH_WAIT_MAX_MS) return null;
  return new Date(now.getTime() + Math.min(LOOK_MAX_MS, Math.max(LOOK_MIN_MS, Math.round(waited / 2))));
}

/** Reads how far the chain watchers have read (chain_cursors), for the live quotes' and payments' expiry timers. */
@Injectable()
export class ChainReadThrough {
  private readonly store: ChainWatchStore;

  constructor(@Inject(DATABASE) db: Database) {
    this.store = new ChainWatchStore(db);
  }

  /** nextLookBeforeEnd over the networks' watch cursors, at wall time `now`. */
  async nextLook(networks: readonly NetworkId[], endsAt: Date, now: Date): Promise<Date | null> {
    if (networks.length === 0) return null;
    const read = await Promise.all([...new Set(networks)].map((network) => this.store.readThrough(network)));
    return nextLookBeforeEnd(endsAt, now, read);
  }
}
