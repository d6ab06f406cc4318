import { createHash, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random bytes drawn 4 KiB at a time: one system call per ~170 ids instead of one per id. */
const pool = Buffer.alloc(4096);
let offset = pool.length;

const ID_CHARS = 24;

/** `prefix_` and 24 base62 characters from the bytes at `from` (256 % 62 bias is < 1.6%: fine for ids, never for secrets). */
function idOf(prefix: string, bytes: Uint8Array, from: number): string {
  let out = '';
  for (let i = from; i < from + ID_CHARS; i++) out += ALPHABET[bytes[i] % 62];
  return `${prefix}_${out}`;
}

/** An object id: the kind's prefix and 24 random base62 characters (~142 bits), e.g. `pmt_…`. */
export function newId(prefix: string): string {
  if (offset + ID_CHARS > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  offset += ID_CHARS;
  return idOf(prefix, pool, offset - ID_CHARS);
}

/**
 * An object id derived from a seed instead of drawn at random: the same seed gives the same id
 * (a request re-run under the same Idempotency-Key names the object its first run created).
 * Same shape as newId: the prefix and 24 base62 characters.
 */
export function idFromSeed(prefix: string, seed: string): string {
  return idOf(prefix, createHash('sha256').update(`${prefix}|${seed}`).digest(), 0);
}

/** Timestamps on the wire: ISO 8601, UTC, milliseconds. */
export function isoTime(date: Date | string | number | null | undefined): string | null {
  if (date == null) return null;
  return new Date(date).toISOString();
}
