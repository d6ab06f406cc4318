import type { AccountsClock } from '../ports';
import type { TwoStepCodeLimit } from '../two-factor/ports';

const LOCK_MS = 15 * 60 * 1000;
const LOCK_EVERY = 5;

/**
 * Stand-in for the two-step code limit (decision 0036) in this process's memory (one process
 * only): every 5th wrong code in a row locks codes for 15 minutes; a right one clears the count.
 */
export class MemoryTwoStepCodeLimit implements TwoStepCodeLimit {
  private readonly counts = new Map<string, { failures: number; lockedUntil: number }>();

  constructor(private readonly clock: AccountsClock) {}

  async check(accountId: string): Promise<{ allowed: true } | { allowed: false; retryAfterSec: number }> {
    const entry = this.counts.get(accountId);
    const now = this.clock().getTime();
    if (!entry || entry.lockedUntil <= now) return { allowed: true };
    return { allowed: false, retryAfterSec: Math.ceil((entry.lockedUntil - now) / 1000) };
  }

  async fail(accountId: string): Promise<void> {
    const failures = (this.counts.get(accountId)?.failures ?? 0) + 1;
    const lockedUntil = failures % LOCK_EVERY === 0 ? this.clock().getTime() + LOCK_MS : (this.counts.get(accountId)?.lockedUntil ?? 0);
    this.counts.set(accountId, { failures, lockedUntil });
  }

  async clear(accountId: string): Promise<void> {
    this.counts.delete(accountId);
  }
}
