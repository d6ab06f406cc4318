import type { Sql } from '@lib/database';

/** `last_used_at` is good to this: a key's use is recorded at most once per this long (decision 0039). */
export const KEY_USE_GRANULARITY_MS = 60_000;

export interface ApiKeyUseOptions {
  /** Milliseconds since the epoch (default Date.now). */
  clock?: () => number;
  /** Most keys remembered (default 10,000); the oldest go first (a forgotten key is written again on its next use). */
  maxEntries?: number;
  /** A failed write: the request it came from has been answered; the key's next use tries again. */
  onError?: (error: unknown) => void;
}

/**
 * When each API key was last used (`last_used_at`, decision 0039), without a write per request:
 * `note` is synchronous and cheap (the request never waits for it); the first use of a key in a
 * minute, in this process, starts one statement in the background, and a use within the minute
 * after it does nothing. The statement leaves a row written less than a minute before as it is,
 * so several processes write a key's row about once a minute between them. Not an event: use is
 * not a decision, and one event per request would flood the log.
 */
export class ApiKeyUse {
  /** Key id → when this process last recorded its use (ms); the Map's order is the eviction order. */
  private readonly recorded = new Map<string, number>();
  private readonly writing = new Set<Promise<void>>();
  private readonly clock: () => number;
  private readonly maxEntries: number;

  constructor(
    private readonly db: Sql,
    private readonly options: ApiKeyUseOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** A request authenticated with the key `keyId` now. */
  note(keyId: string): void {
    const now = this.clock();
    const last = this.recorded.get(keyId);
    if (last !== undefined && now - last < KEY_USE_GRANULARITY_MS) return;
    this.recorded.delete(keyId);
    this.recorded.set(keyId, now);
    while (this.recorded.size > this.maxEntries) this.recorded.delete(this.recorded.keys().next().value!);
    const write: Promise<void> = this.write(keyId, new Date(now))
      .catch((error: unknown) => {
        if (this.recorded.get(keyId) === now) this.recorded.delete(keyId);
        this.options.onError?.(error);
      })
      .finally(() => this.writing.delete(write));
    this.writing.add(write);
  }

  /** Resolves once the writes started so far have ended (tests, shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.writing]);
  }

  private async write(keyId: string, at: Date): Promise<void> {
    await this.db.query(
      `INSERT INTO api_key_activity (key_id, last_used_at) VALUES ($1, $2)
       ON CONFLICT (key_id) DO UPDATE SET last_used_at = EXCLUDED.last_used_at
       WHERE api_key_activity.last_used_at <= EXCLUDED.last_used_at - make_interval(secs => $3::double precision / 1000)`,
      [keyId, at, KEY_USE_GRANULARITY_MS],
      'api_key_use_record',
    );
  }
}

/** When the key was last used, as recorded (null: never). */
export async function keyLastUsedAt(db: Sql, keyId: string): Promise<Date | null> {
  const { rows } = await db.query<{ last_used_at: Date }>(`SELECT last_used_at FROM api_key_activity WHERE key_id = $1`, [keyId], 'api_key_use_read');
  return rows[0]?.last_used_at ?? null;
}
