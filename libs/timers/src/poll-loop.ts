/**
 * The polling loop of a background worker (the timer runner, the webhook dispatcher): once
 * started, runs `tick` again `intervalMs` after the one before ended, never two at a time.
 * kick() asks for a tick as soon as possible: at once when none is running, else right after
 * the one in progress (any number of kicks meanwhile make one more tick). stop() ends the
 * polling and waits for the tick in progress. The interval's timer never keeps the process alive.
 */
export class PollLoop {
  private isRunning = false;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private again = false;

  /** `tick` must not reject: it reports its own errors (to the worker's onError). */
  constructor(
    private readonly tick: () => Promise<void>,
    private readonly intervalMs: number,
  ) {}

  /** Started and not stopped since. */
  get running(): boolean {
    return this.isRunning;
  }

  /** Starts polling: the first tick at once, or (`firstTick: 'after-interval'`) one interval from now. */
  start(firstTick: 'now' | 'after-interval' = 'now'): void {
    if (this.isRunning) return;
    this.isRunning = true;
    if (firstTick === 'now') this.kick();
    else this.wait();
  }

  /** Ticks as soon as possible (coalesced with a tick in progress); nothing once stopped. */
  kick(): void {
    if (!this.isRunning) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.clearTimer();
    this.ticking = this.tick().finally(() => {
      this.ticking = null;
      if (!this.isRunning) return;
      if (this.again) {
        this.again = false;
        return this.kick();
      }
      this.wait();
    });
  }

  /** Stops polling and waits for the tick in progress. */
  async stop(): Promise<void> {
    this.isRunning = false;
    this.clearTimer();
    await this.ticking;
  }

  private wait(): void {
    this.timer = setTimeout(() => this.kick(), this.intervalMs);
    this.timer.unref?.();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
