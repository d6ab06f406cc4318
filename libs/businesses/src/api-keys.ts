import { createHash, randomBytes } from 'node:crypto';

export const KEY_KINDS = ['secret', 'publishable', 'restricted'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

const KIND_PREFIX: Record<KeyKind, string> = { secret: 'sk', publishable: 'pk', restricted: 'rk' };

/** Random characters after the prefix: 32 base62 characters carry about 190 bits. */
export const KEY_RANDOM_LENGTH = 32;
/** Every key is its 8-character prefix (`sk_live_`) plus the random part: 40 characters. */
export const KEY_LENGTH = 8 + KEY_RANDOM_LENGTH;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The largest multiple of 62 that fits a byte: bytes at or above it are drawn again. */
const UNBIASED_LIMIT = 256 - (256 % 62); // 248

const KEY_FORMAT = /^(sk|pk|rk)_(live|test)_[0-9A-Za-z]{32}$/;

/** `sk_live_`, `pk_test_`, `rk_live_`, … */
export function keyPrefix(kind: KeyKind, mode: KeyMode): string {
  return `${KIND_PREFIX[kind]}_${mode}_`;
}

/**
 * `length` uniformly random base62 characters. Bytes from 248 up are rejected and drawn again
 * (a plain `byte % 62` would make the first 8 characters of the alphabet 25% likelier).
 * `random` is crypto.randomBytes; tests pass their own to check the rejection.
 */
export function randomBase62(length: number, random: (size: number) => Buffer = randomBytes): string {
  let out = '';
  while (out.length < length) {
    // ~3% of bytes are rejected: ask for a little more than needed
    for (const byte of random(Math.ceil((length - out.length) * 1.1) + 2)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** The stored form of a key: sha256 of the whole key, hex. The key itself is never stored. */
export function hashKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Whether a string has the shape of one of our keys (checked before any lookup). */
export function isWellFormedKey(secret: string): boolean {
  return KEY_FORMAT.test(secret);
}

/** What a freshly minted key leaves behind: the key (shown once) and what may be stored. */
export interface MintedKey {
  /** The full key, e.g. `sk_live_` + 32 base62 characters. Show it once; never store it. */
  secret: string;
  secret_hash: string;
  prefix: string;
  last4: string;
}

export function mintApiKey(kind: KeyKind, mode: KeyMode, random?: (size: number) => Buffer): MintedKey {
  const prefix = keyPrefix(kind, mode);
  const secret = prefix + randomBase62(KEY_RANDOM_LENGTH, random);
  return { secret, secret_hash: hashKey(secret), prefix, last4: secret.slice(-4) };
}

/** The form a key is shown in after creation: `sk_live_…a1b2`. */
export function redactKey(prefix: string, last4: string): string {
  return `${prefix}…${last4}`;
}
