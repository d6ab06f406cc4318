import { PollLoop } from './poll-loop';
import { Timer, TimerStore } from './timer-store';

/**
 * Handles one fired timer. Timers fire AT LEAST once (a worker may crash after the handler ran
 * and before the timer was marked fired, or a handler may outlive its lease), so a handler
 * must be idempotent: check the subject's state, and use deterministic command/event ids.
 * Throwing reschedules the timer with back-off.
 */
export type TimerHandler = (timer: Timer) => Promise<void> | void;

export interface TimerRunnerOptions {
  /** Poll interval once started (default 250 ms). */
  pollMs?: number;
  /** Timers claimed per round (default 50). */
  batchSize?: number;
  /** How long a claim holds a timer against other workers (default 30 s of wall time). */
  leaseMs?: number;
  /** Claims after which a failing timer is given up as 'failed' (default 10). */
  maxAttempts?: number;
  /** Back-off before the retry that follows failed attempt n (1-based); default 1 s · 2^(n-1), at most 5 min. */
  backoffMs?: (attempt: number) => number;
  /** Rounds a single runDue() does at most (timers scheduling timers already due; default 100). */
  maxRounds?: number;
  /** Told of handler failures and poll errors (logging). */
  onError?: (error: unknown, timer?: Timer) => void;
}

export const defaultBackoffMs = (attempt: number): number => Math.min(300_000, 1000 * 2 ** Math.max(0, attempt - 1));

/**
 * Fires due timers: polls every `pollMs` once started, and on demand (`runDue()`, e.g. right
 * after a test clock moved). Each claimed timer goes to the handler registered for its kind
 * (only those kinds are claimed); success marks it fired, failure records the error and retries
 * after back-off, up to `maxAttempts`, then marks it 'failed'. Several runners, in one process
 * or many, can share a database: they coordinate through the claim leases only.
 */
export class TimerRunner {
  private readonly handlers = new Map<string, TimerHandler>();
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: (attempt: number) => number;
  private readonly maxRounds: number;
  private queue: Promise<unknown> = Promise.resolve();
  /** Runs pollRound every `pollMs` once started. */
  private readonly poll: PollLoop;

  constructor(
    private readonly store: TimerStore,
    private readonly options: TimerRunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 50;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.maxAttempts = options.maxAttempts ?? 10;
    this.backoffMs = options.backoffMs ?? defaultBackoffMs;
    this.maxRounds = options.maxRounds ?? 100;
    this.poll = new PollLoop(() => this.pollRound(), options.pollMs ?? 250);
  }

  /** Registers the handler of a kind (one per kind). */
  on(kind: string, handler: TimerHandler): this {
    if (this.handlers.has(kind)) throw new Error(`a handler for timer kind ${kind} is already registered`);
    this.handlers.set(kind, handler);
    return this;
  }

  /** Starts polling: the first round one poll interval from now. */
  start(): void {
    this.poll.start('after-interval');
  }

  /** Stops polling and waits for the round in hand. */
  async stop(): Promise<void> {
    await this.poll.stop();
    await this.queue.catch(() => undefined);
  }

  /**
   * Fires every timer due now (including timers that handlers schedule already due), after any
   * round in progress; resolves how many fired. Rounds of one runner never overlap.
   */
  runDue(): Promise<number> {
    const next = this.queue.then(
      () => this.drain(),
      () => this.drain(),
    );
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** A round the poll runs: its failure goes to onError, and polling goes on. */
  private async pollRound(): Promise<void> {
    try {
      await this.runDue();
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  private async drain(): Promise<number> {
    if (this.handlers.size === 0) return 0;
    const kinds = [...this.handlers.keys()];
    let fired = 0;
    for (let round = 0; round < this.maxRounds; round++) {
      const claimed = await this.store.claimDue(this.batchSize, this.leaseMs, kinds);
      if (claimed.length === 0) break;
      // In due order, one at a time: a payment's arrival fires before its confirmation.
      for (const timer of claimed) if (await this.fire(timer)) fired++;
    }
    return fired;
  }

  private async fire(timer: Timer): Promise<boolean> {
    const handler = this.handlers.get(timer.kind);
    try {
      if (!handler) throw new Error(`no handler for timer kind ${timer.kind}`);
      await handler(timer);
    } catch (error) {
      this.options.onError?.(error, timer);
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const retryAt = timer.attempts >= this.maxAttempts ? null : new Date(this.store.wallNow().getTime() + this.backoffMs(timer.attempts));
      await this.store.markFailed(timer.id, message, retryAt, timer.attempts);
      return false;
    }
    return this.store.markFired(timer.id);
  }
}
