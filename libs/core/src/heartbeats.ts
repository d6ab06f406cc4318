import { randomBytes } from 'node:crypto';
import { Database } from '@lib/database';

/** A process that runs the background work, as GET /health shows it (no host, no pid: the id is opaque). */
export interface WorkerSeen {
  id: string;
  role: 'worker' | 'all';
  startedAt: Date;
  seenAt: Date;
}

/** What every process knows of the background-work processes, from the worker_heartbeats table. */
export interface WorkersStatus {
  /** Those seen within the stale bound and not stopped, newest first. */
  running: WorkerSeen[];
  /** The newest heartbeat of any of them, running or not (null: none recorded in the last hour). */
  lastSeenAt: Date | null;
  staleAfterMs: number;
}

/** Rows of processes not seen for this long are deleted (by the processes still beating). */
const KEEP_MS = 60 * 60 * 1000;

/**
 * Worker liveness (decision 0017, addendum of 2026-11-29). A process of role `worker` or `all`
 * records a row in worker_heartbeats at start and refreshes its seen_at every staleAfter/3 (at
 * most every 5 s); a graceful stop marks it stopped. Any process (an `api` replica too) reads
 * the table for GET /health and the metrics. Times are the database's clock.
 */
export class WorkerHeartbeats {
  /** This process's opaque id (`wrk_` and 24 hex digits, new at every start). */
  readonly id = `wrk_${randomBytes(12).toString('hex')}`;
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;

  constructor(
    private readonly db: Database,
    private readonly role: 'all' | 'api' | 'worker',
    readonly staleAfterMs: number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** How often a beating process refreshes its row: three times within the stale bound, at most every 5 s. */
  get intervalMs(): number {
    return Math.max(100, Math.min(5000, Math.floor(this.staleAfterMs / 3)));
  }

  /** Records this process (roles `worker` and `all`) and keeps it fresh until stop(); an `api` process records nothing. */
  async start(): Promise<void> {
    if (this.role === 'api' || this.timer) return;
    await this.beat();
    this.timer = setInterval(() => {
      if (this.beating) return;
      this.beating = this.beat()
        .catch((error: unknown) => this.onError(error))
        .finally(() => (this.beating = null));
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops beating and marks this process stopped (a graceful stop: it is no longer running). */
  async stop(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    await this.db.query(`UPDATE worker_heartbeats SET seen_at = now(), stopped_at = now() WHERE id = $1`, [this.id]).catch((error: unknown) => this.onError(error));
  }

  private async beat(): Promise<void> {
    await this.db.query(
      `INSERT INTO worker_heartbeats (id, role) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET seen_at = now(), stopped_at = NULL`,
      [this.id, this.role],
    );
    await this.db.query(`DELETE FROM worker_heartbeats WHERE seen_at < now() - $1 * interval '1 millisecond'`, [KEEP_MS]);
  }

  /** The background-work processes this database knows, and whether any runs. */
  async status(): Promise<WorkersStatus> {
    const { rows } = await this.db.query<{ id: string; role: 'worker' | 'all'; started_at: Date | string; seen_at: Date | string; running: boolean }>(
      `SELECT id, role, started_at, seen_at, (stopped_at IS NULL AND seen_at >= now() - $1 * interval '1 millisecond') AS running
         FROM worker_heartbeats ORDER BY seen_at DESC, id`,
      [this.staleAfterMs],
    );
    return {
      running: rows.filter((r) => r.running).map((r) => ({ id: r.id, role: r.role, startedAt: new Date(r.started_at), seenAt: new Date(r.seen_at) })),
      lastSeenAt: rows.length === 0 ? null : new Date(rows[0].seen_at),
      staleAfterMs: this.staleAfterMs,
    };
  }
}
