import { EventEmitter } from 'node:events';
import { BatchHandler, EventStore, Subscription } from './event-store.port';
import { LogPosition, comparePositions } from './position';

const RECENT_APPEND_MS = 250;
/** After a batch with other processes' appends, the log is looked at again soon for this long. */
const BUSY_MS = 1000;
const SOON_MS = 3;
const SOON_MAX_MS = 12;

interface PollingOptions {
  after: LogPosition | null;
  batchSize: number;
  pollIntervalMs: number;
  /**
   * The store can hide a committed append for a moment (PostgreSQL: readers see only below the
   * oldest running transaction). Then, while the subscription has not yet reached a local
   * append's position, an empty read looks again soon — 3 ms, doubling each empty read up to
   * 12 ms, for at most 250 ms — instead of a whole interval. Once it has read past every local
   * append it knows of, it waits for the next one (or the interval) again. The same stores take
   * appends from other processes, which no local signal announces: for a second after a batch
   * that held such appends (events past the latest local one), an empty read looks again soon too (3 ms doubling up to the interval), so a worker follows a
   * busy log within milliseconds and an idle one at the interval. Stores that show every commit at
   * once and have no other writer (the embedded one) leave it off.
   */
  appendsMayLag?: boolean;
  /**
   * Wake this long after a local append instead of at once, so appends that follow within it are
   * read in the same batch. For a store that runs one statement at a time (the embedded one): a
   * read queued at each append would take one event per batch, and every batch's transaction holds
   * the next appends back. 0: at once.
   */
  gatherMs?: number;
  /** Told about a failed read before the retry (the store may be restarting). */
  onReadError: (error: unknown, failures: number) => void;
}

/**
 * Catch-up subscription over readAll: reads a batch after the checkpoint, awaits the handler,
 * moves the checkpoint, repeats; once caught up it waits for a local append or the poll
 * interval (appends from other processes are seen by polling). A failing handler ends the
 * subscription (done rejects) with the checkpoint at the last batch it finished; a failing
 * read is retried with backoff, since the store may just be restarting.
 */
export class PollingSubscription implements Subscription {
  private current: LogPosition | null;
  private stopped = false;
  private wake: (() => void) | null = null;
  private markCaughtUp!: () => void;
  readonly caughtUp = new Promise<void>((resolve) => (this.markCaughtUp = resolve));
  readonly done: Promise<void>;

  constructor(
    private readonly store: Pick<EventStore, 'readAll'>,
    private readonly appended: EventEmitter,
    private readonly handler: BatchHandler,
    private readonly options: PollingOptions,
  ) {
    this.current = options.after;
    this.done = this.run();
    this.done.catch(() => undefined); // callers observe it; never an unhandled rejection
  }

  get position(): LogPosition | null {
    return this.current;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.done.catch(() => undefined);
  }

  private async run(): Promise<void> {
    let lastAppend = 0;
    let soon = SOON_MS;
    let lastForeignBatch = 0;
    let gathering: NodeJS.Timeout | null = null;
    let busy = SOON_MS;
    /** The latest local append's position this subscription has not read past yet. */
    let awaited: LogPosition | null = null;
    /** Local appends so far: a short batch is read again at once only if one came after its read began. */
    let appends = 0;
    const onAppend = (position?: LogPosition) => {
      appends++;
      lastAppend = Date.now();
      soon = SOON_MS;
      if (position && (awaited === null || comparePositions(position, awaited) > 0)) awaited = position;
      if (!this.options.gatherMs) return this.wake?.();
      gathering ??= setTimeout(() => {
        gathering = null;
        this.wake?.();
      }, this.options.gatherMs);
    };
    const behindLocalAppend = (): boolean => {
      if (awaited === null) return true; // an append that did not say where: assume not seen yet
      if (this.current !== null && comparePositions(this.current, awaited) >= 0) return false;
      return true;
    };
    this.appended.on('append', onAppend);
    let failures = 0;
    try {
      while (!this.stopped) {
        let batch;
        const appendsBeforeRead = appends;
        try {
          batch = await this.store.readAll({ after: this.current, maxCount: this.options.batchSize });
          failures = 0;
        } catch (error) {
          if (this.stopped) return;
          failures++;
          this.options.onReadError(error, failures);
          await this.sleep(Math.min(5000, 100 * 2 ** failures));
          continue;
        }
        if (this.stopped) return;
        if (batch.length > 0) {
          soon = SOON_MS;
          // events past the latest local append came from another process: follow the log closely for a while
          if (batch.some((e) => awaited === null || comparePositions(e.position, awaited) > 0)) {
            busy = SOON_MS;
            lastForeignBatch = Date.now();
          }
          await this.handler(batch);
          this.current = batch[batch.length - 1].position;
          if (batch.length === this.options.batchSize) continue;
        }
        this.markCaughtUp();
        // a short batch is all the log showed when it was read: read again at once only if a local
        // append came since; otherwise wait as after an empty read (soon while a local append is
        // still hidden, or while following another process's appends; else the next signal)
        if (batch.length === 0 || appends === appendsBeforeRead) {
          // a local append just happened but is not visible yet: look again soon, backing off
          const lagging =
            this.options.appendsMayLag === true && Date.now() - lastAppend < RECENT_APPEND_MS && soon < this.options.pollIntervalMs && behindLocalAppend();
          const following = !lagging && this.options.appendsMayLag === true && Date.now() - lastForeignBatch < BUSY_MS && busy < this.options.pollIntervalMs;
          await this.sleep(lagging ? soon : following ? busy : this.options.pollIntervalMs);
          if (lagging) soon = Math.min(SOON_MAX_MS, soon * 2);
          if (following) busy *= 2;
        }
      }
    } finally {
      if (gathering) clearTimeout(gathering);
      this.appended.off('append', onAppend);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }
}
