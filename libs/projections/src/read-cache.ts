import { ChangedScopes } from './checkpoints';

/** What a ScopedReadCache needs of the projection runner (ProjectionRunner.onChanged, announcesChanges). */
export interface ChangeAnnouncer {
  onChanged(listener: (projection: string, scopes: ChangedScopes) => void): () => void;
  announcesChanges(projection: string): boolean;
}

export interface ScopedReadCacheOptions {
  /** Bytes (characters) of answers kept at most, least recently used dropped first; 0 keeps none. */
  maxBytes: number;
  /** An answer older than this is read again, whatever was announced (a bound on any change not announced). */
  maxAgeMs: number;
  /** Scopes whose last change is remembered; past it every answer is dropped instead (bounds memory). */
  maxScopes?: number;
  now?: () => number;
}

interface Entry {
  scope: string;
  value: string;
  /** The cache's generation when the read that produced it started. */
  generation: number;
  at: number;
}

/**
 * Answers read from one projection's tables, kept in this process by scope (a business id) and
 * key (e.g. a list's query string), so that the same page asked again is not read and assembled
 * again (decision 0019, addendum: GET /payments). Correct because the cache is told of every
 * change to those tables (ProjectionRunner.onChanged): a batch committed here drops the answers
 * of the scopes it changed, checkpoints moved by another process (a second replica, a rebuild)
 * drop them all, and so does the first batch after a rebuild swapped the tables in (it keeps the
 * checkpoint's position, so the runner sees its `rebuilt_at` change instead: applyBatches). Where it is not told (an API-only process, a projector that left the group to
 * retry alone) it keeps nothing and every read goes to the database. A read that a change
 * overtook is not kept, and no answer outlives `maxAgeMs`.
 *
 * Read-your-writes is unchanged: the barrier before a read (ReadYourWritesInterceptor) waits for
 * the projections, and the change is announced before the waiting reads go on.
 */
export class ScopedReadCache {
  private readonly entries = new Map<string, Entry>(); // least recently used first
  private bytes = 0;
  private generation = 0;
  private readonly changedAt = new Map<string, number>();
  private allChangedAt = 0;
  private readonly now: () => number;
  private counts = { hits: 0, misses: 0 };

  constructor(
    private readonly runner: ChangeAnnouncer,
    private readonly projection: string,
    private readonly options: ScopedReadCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
    runner.onChanged((name, scopes) => {
      if (name === projection) this.changed(scopes);
    });
  }

  /** Reads served from memory and read from the database since start. */
  get stats(): { hits: number; misses: number; entries: number; bytes: number } {
    return { ...this.counts, entries: this.entries.size, bytes: this.bytes };
  }

  /** The answer to (scope, key): kept, or `load`ed (and kept when no change overtook the read). */
  async get(scope: string, key: string, load: () => Promise<string>): Promise<string> {
    if (this.options.maxBytes <= 0 || !this.runner.announcesChanges(this.projection)) return load();
    const id = `${scope}\u0000${key}`;
    const entry = this.entries.get(id);
    if (entry !== undefined) {
      this.remove(id, entry);
      if (this.now() - entry.at <= this.options.maxAgeMs && this.current(scope, entry.generation)) {
        this.entries.set(id, entry); // most recently used
        this.bytes += entry.value.length;
        this.counts.hits++;
        return entry.value;
      }
    }
    this.counts.misses++;
    const generation = this.generation;
    const at = this.now();
    const value = await load();
    if (this.current(scope, generation) && value.length <= this.options.maxBytes / 4 && this.runner.announcesChanges(this.projection)) {
      const before = this.entries.get(id);
      if (before !== undefined) this.remove(id, before);
      this.entries.set(id, { scope, value, generation, at });
      this.bytes += value.length;
      for (const [oldest, e] of this.entries) {
        if (this.bytes <= this.options.maxBytes) break;
        this.remove(oldest, e);
      }
    }
    return value;
  }

  /** Whether nothing changed in `scope` since `generation`. */
  private current(scope: string, generation: number): boolean {
    return this.allChangedAt <= generation && (this.changedAt.get(scope) ?? 0) <= generation;
  }

  private changed(scopes: ChangedScopes): void {
    this.generation++;
    if (scopes === null || this.changedAt.size + scopes.length > (this.options.maxScopes ?? 10_000)) {
      this.allChangedAt = this.generation;
      this.changedAt.clear();
      this.entries.clear();
      this.bytes = 0;
      return;
    }
    for (const scope of scopes) this.changedAt.set(scope, this.generation); // their entries are dropped when next asked for
  }

  private remove(id: string, entry: Entry): void {
    this.entries.delete(id);
    this.bytes -= entry.value.length;
  }
}
