import { Sql } from '@lib/database';

/** Wall time: the source every clock and timer store reads; tests inject their own. */
export type TimeSource = () => Date;

export const wallTime: TimeSource = () => new Date();

/**
 * The one clock (DESIGN.md "Time"). `now(businessId)` is wall time plus that business's test
 * clock offset (0 unless the business advanced its clock); `now()` is wall time.
 */
export interface Clock {
  now(businessId?: string): Promise<Date>;
}

/** Reads test clock offsets from `business_clocks`; wall time comes from `base`. */
export class SystemClock implements Clock {
  constructor(
    private readonly db: Sql,
    private readonly base: TimeSource = wallTime,
  ) {}

  async now(businessId?: string): Promise<Date> {
    const wall = this.base();
    if (businessId === undefined) return wall;
    return new Date(wall.getTime() + (await clockOffsetMs(this.db, businessId)));
  }
}

/** A business's test clock offset in milliseconds (0 without a row). */
export async function clockOffsetMs(db: Sql, businessId: string): Promise<number> {
  const { rows } = await db.query<{ offset_ms: string | number | bigint }>(
    `SELECT offset_ms FROM business_clocks WHERE business_id = $1`,
    [businessId],
    'timers_clock_offset',
  );
  return rows.length ? Number(rows[0].offset_ms) : 0;
}
