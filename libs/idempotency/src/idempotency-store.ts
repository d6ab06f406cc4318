import { createHash, randomUUID } from 'node:crypto';

/** A finished 2xx response, kept so that a retry with the same key gets it back unchanged. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type BeginResult =
  /** The caller owns the key: run the request, then complete() (2xx) or release() (error). */
  | { state: 'started'; token: string }
  /** The same request (same fingerprint) finished: replay its response. */
  | { state: 'replay'; response: StoredResponse }
  /** The same request (same fingerprint) is still running. */
  | { state: 'in_use' }
  /** The key was used with a different fingerprint (running or finished). */
  | { state: 'reused' };

/**
 * Storage of idempotency keys. A key lives in a scope (the business, or whatever the caller
 * keys by); the same key in two scopes are two unrelated keys.
 */
export interface IdempotencyStore {
  /** Claims (scope, key) for a request with this fingerprint. lockTtlMs bounds how long a crashed request keeps the key locked. */
  begin(scope: string, key: string, fingerprint: string, lockTtlMs?: number): Promise<BeginResult>;
  /** Stores the 2xx response for ttlMs (default 24 h); only the holder of `token` can. */
  complete(scope: string, key: string, token: string, response: StoredResponse, ttlMs?: number): Promise<void>;
  /** Frees the key (the request failed: errors are not kept); only the holder of `token` can. */
  release(scope: string, key: string, token: string): Promise<void>;
  close(): Promise<void>;
}

/** How long a completed response is kept (spec: 24 hours). */
export const DEFAULT_RESPONSE_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a request that never completes nor releases (its process died) keeps its key locked. */
export const DEFAULT_LOCK_TTL_MS = 60 * 1000;

/**
 * The fingerprint of a request: sha256 (hex) of its upper-cased method, path and body, joined
 * as a JSON array so that no two different triples join to the same text.
 */
export function fingerprint(method: string, path: string, body: string): string {
  return createHash('sha256')
    .update(JSON.stringify([method.toUpperCase(), path, body]))
    .digest('hex');
}

/** A duration in whole milliseconds, at least 1; anything else is a programming error. */
function durationMs(value: number, what: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${what} must be a positive number of milliseconds, got ${value}`);
  return Math.ceil(value);
}

/** begin() retries when the record it lost to disappears before it can read it; this bounds a pathological loop. */
const MAX_BEGIN_ATTEMPTS = 100;

/** The record that holds a key begin() could not claim, as a store reads it back. */
export type HeldKey = { fingerprint: string } & ({ state: 'running' } | { state: 'done'; response: StoredResponse });

/**
 * What the Redis and SQL stores share: begin()'s claim-or-decide loop and complete()'s checks
 * and copy of the response. A store supplies the atomic steps on its storage (claim, readHeld,
 * storeResponse, release), each a single command or statement.
 */
export abstract class ClaimingIdempotencyStore implements IdempotencyStore {
  async begin(scope: string, key: string, fingerprint: string, lockTtlMs = DEFAULT_LOCK_TTL_MS): Promise<BeginResult> {
    const lockMs = durationMs(lockTtlMs, 'lockTtlMs');
    for (let attempt = 0; attempt < MAX_BEGIN_ATTEMPTS; attempt++) {
      const token = randomUUID();
      if (await this.claim(scope, key, fingerprint, token, lockMs)) return { state: 'started', token };
      const held = await this.readHeld(scope, key);
      if (held === null) continue; // released, purged or expired in between: claim again
      if (held.fingerprint !== fingerprint) return { state: 'reused' };
      return held.state === 'done' ? { state: 'replay', response: held.response } : { state: 'in_use' };
    }
    throw new Error(`idempotency key ${this.describeKey(scope, key)} kept changing under begin(); gave up after ${MAX_BEGIN_ATTEMPTS} attempts`);
  }

  async complete(scope: string, key: string, token: string, response: StoredResponse, ttlMs = DEFAULT_RESPONSE_TTL_MS): Promise<void> {
    const ttl = durationMs(ttlMs, 'ttlMs');
    const stored: StoredResponse = { status: response.status, headers: response.headers, body: response.body };
    await this.storeResponse(scope, key, token, JSON.stringify(stored), ttl);
  }

  abstract release(scope: string, key: string, token: string): Promise<void>;
  abstract close(): Promise<void>;

  /** Takes the key for `token` if it is free (never claimed, or its time is up); true when taken. */
  protected abstract claim(scope: string, key: string, fingerprint: string, token: string, lockMs: number): Promise<boolean>;
  /** The record holding the key, or null when it is gone (released or expired) since the claim failed. */
  protected abstract readHeld(scope: string, key: string): Promise<HeldKey | null>;
  /** Stores the response JSON as the key's done record for ttlMs, only while `token` holds the key. */
  protected abstract storeResponse(scope: string, key: string, token: string, responseJson: string, ttlMs: number): Promise<void>;

  /** The key as error messages name it. */
  protected describeKey(scope: string, key: string): string {
    return `(${scope}, ${key})`;
  }
}
