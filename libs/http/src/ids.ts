import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** An object id: the kind's prefix and 24 random base62 characters (~142 bits), e.g. `pmt_…`. */
export function newId(prefix: string): string {
  const bytes = randomBytes(24);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % 62]; // 256 % 62 bias is < 1.6%: fine for ids, never for secrets
  return `${prefix}_${out}`;
}

/** Timestamps on the wire: ISO 8601, UTC, milliseconds. */
export function isoTime(date: Date | string | number | null | undefined): string | null {
  if (date == null) return null;
  return new Date(date).toISOString();
}
