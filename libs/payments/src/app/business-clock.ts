import { Injectable } from '@nestjs/common';
import { DueTimer, TimerStore } from '@lib/timers';

/**
 * A business's own time (decision 0010): wall time plus its test clock's offset, so a simulated
 * business can run ahead. Every decision takes its `now` from here, never from `new Date()`.
 */
@Injectable()
export class BusinessClock {
  constructor(private readonly timers: TimerStore) {}

  now(businessId?: string): Promise<Date> {
    return this.timers.clock.now(businessId);
  }

  /**
   * A business's now, without a read for a live business: only a simulated business has a test
   * clock (AdvanceTestClockHandler refuses the others, and `simulated` is fixed when the business
   * is created), so a live business's offset is always 0 and its now is wall time. A simulated
   * business's offset is read (it may have moved in another process a moment ago) — unless the
   * request read it with the business itself (`clockOffsetMs`, ActingBusiness): then that read is used.
   */
  nowOf(business: { id: string; simulated: boolean; clockOffsetMs?: number }): Promise<Date> {
    if (business.clockOffsetMs !== undefined) return Promise.resolve(new Date(this.wallNow().getTime() + business.clockOffsetMs));
    return business.simulated ? this.timers.clock.now(business.id) : this.timers.clock.now();
  }

  /** Moves a business's test clock forward; resolves its new time. */
  advance(businessId: string, seconds: number): Promise<Date> {
    return this.timers.advanceClock(businessId, seconds);
  }

  /** `advance`, with the clock's offset after the move and the business's timers due by then, in the same statement. */
  advanceListingDue(businessId: string, seconds: number): Promise<{ now: Date; offsetMs: number; due: DueTimer[]; movedAt: Date }> {
    return this.timers.advanceClockListingDue(businessId, seconds);
  }

  /** The process's wall time (what the offset is measured from). */
  wallNow(): Date {
    return this.timers.wallNow();
  }
}
