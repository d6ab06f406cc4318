import { createHash } from 'node:crypto';

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

/** @internal A duration in whole milliseconds, at least 1; anything else is a programming error. */
export function durationMs(value: number, what: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${what} must be a positive number of milliseconds, got ${value}`);
  return Math.ceil(value);
}

/** @internal What begin() answers once it has seen the record that holds the key. */
export function decide(
  existing: { state: 'running' } | { state: 'done'; response: StoredResponse },
  existingFingerprint: string,
  requestFingerprint: string,
): BeginResult {
  if (existingFingerprint !== requestFingerprint) return { state: 'reused' };
  return existing.state === 'done' ? { state: 'replay', response: existing.response } : { state: 'in_use' };
}

/** begin() retries when the record it lost to disappears before it can read it; this bounds a pathological loop. */
export const MAX_BEGIN_ATTEMPTS = 100;
