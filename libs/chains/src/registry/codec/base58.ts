import { createHash } from 'node:crypto';

/**
 * Base58 (Bitcoin alphabet), as Bitcoin addresses and Solana keys and signatures use it, and
 * Base58Check (payload + first 4 bytes of double SHA-256). Pure computation.
 */
export const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE58_ALPHABET.length; i++) DIGIT[BASE58_ALPHABET.charCodeAt(i)] = i;

/**
 * Decodes base58 text into bytes; null when a character is outside the alphabet. Each leading
 * '1' is one leading zero byte. Quadratic in the length: callers bound the length first.
 */
export function base58Decode(text: string): Uint8Array | null {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49 /* '1' */) zeros++;
  // Big-endian base-256 number, built digit by digit: bytes = bytes * 58 + digit.
  const bytes: number[] = [];
  for (let i = zeros; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? DIGIT[code] : -1;
    if (digit < 0) return null;
    let carry = digit;
    for (let j = bytes.length - 1; j >= 0; j--) {
      carry += bytes[j] * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.unshift(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + bytes.length);
  out.set(bytes, zeros);
  return out;
}

/** Encodes bytes as base58; each leading zero byte becomes a '1'. */
export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Little-endian base-58 digits: digits = digits * 256 + byte.
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i];
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j] << 8;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let text = '1'.repeat(zeros);
  for (let i = digits.length - 1; i >= 0; i--) text += BASE58_ALPHABET[digits[i]];
  return text;
}

function sha256d(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(createHash('sha256').update(bytes).digest()).digest();
}

/** Decodes Base58Check text and returns the payload (version byte included); null when invalid. */
export function base58CheckDecode(text: string): Uint8Array | null {
  const raw = base58Decode(text);
  if (raw === null || raw.length < 5) return null;
  const payload = raw.subarray(0, raw.length - 4);
  const checksum = sha256d(payload);
  for (let i = 0; i < 4; i++) if (raw[payload.length + i] !== checksum[i]) return null;
  return payload;
}

/** Encodes a payload (version byte included) as Base58Check. */
export function base58CheckEncode(payload: Uint8Array): string {
  const out = new Uint8Array(payload.length + 4);
  out.set(payload);
  out.set(sha256d(payload).subarray(0, 4), payload.length);
  return base58Encode(out);
}
