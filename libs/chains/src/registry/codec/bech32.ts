/**
 * Bech32 (BIP173) and Bech32m (BIP350) strings, and segwit addresses built on them. Pure.
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const CHARSET_REV = new Int8Array(128).fill(-1);
for (let i = 0; i < CHARSET.length; i++) CHARSET_REV[CHARSET.charCodeAt(i)] = i;

const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

export type Bech32Encoding = 'bech32' | 'bech32m';
const CONSTANT: Record<Bech32Encoding, number> = { bech32: 1, bech32m: 0x2bc830a3 };

function polymod(values: readonly number[]): number {
  let chk = 1;
  for (const value of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ value) >>> 0;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk = (chk ^ GENERATOR[i]) >>> 0;
  }
  return chk;
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >> 5);
  out.push(0);
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31);
  return out;
}

export interface Bech32Decoded {
  /** Human-readable part, lower case. */
  readonly hrp: string;
  /** 5-bit words, checksum removed. */
  readonly words: readonly number[];
  readonly encoding: Bech32Encoding;
}

/**
 * Decodes a Bech32 or Bech32m string (either checksum is tried); null when invalid: mixed case,
 * a character outside US-ASCII 33..126, longer than 90, no separator, empty HRP, fewer than 6
 * checksum characters, a data character outside the charset, or a bad checksum.
 */
export function bech32Decode(text: string): Bech32Decoded | null {
  if (text.length > 90) return null;
  let lower = false;
  let upper = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 33 || c > 126) return null;
    if (c >= 97 && c <= 122) lower = true;
    if (c >= 65 && c <= 90) upper = true;
  }
  if (lower && upper) return null;
  const str = text.toLowerCase();
  const pos = str.lastIndexOf('1');
  if (pos < 1 || pos + 7 > str.length) return null;
  const hrp = str.slice(0, pos);
  const data: number[] = [];
  for (let i = pos + 1; i < str.length; i++) {
    const d = CHARSET_REV[str.charCodeAt(i)];
    if (d < 0) return null;
    data.push(d);
  }
  const check = polymod([...hrpExpand(hrp), ...data]);
  const encoding: Bech32Encoding | null =
    check === CONSTANT.bech32 ? 'bech32' : check === CONSTANT.bech32m ? 'bech32m' : null;
  if (encoding === null) return null;
  return { hrp, words: data.slice(0, data.length - 6), encoding };
}

/** Encodes 5-bit words under a lower-case HRP. */
export function bech32Encode(hrp: string, words: readonly number[], encoding: Bech32Encoding): string {
  const values = [...hrpExpand(hrp), ...words, 0, 0, 0, 0, 0, 0];
  const mod = polymod(values) ^ CONSTANT[encoding];
  let out = `${hrp}1`;
  for (const w of words) out += CHARSET[w];
  for (let i = 0; i < 6; i++) out += CHARSET[(mod >>> (5 * (5 - i))) & 31];
  return out;
}

/**
 * Regroups bits (8→5 with padding, 5→8 without); null when the input has a value too wide, or,
 * without padding, more than 4 leftover bits or non-zero leftover bits (BIP173).
 */
export function convertBits(data: readonly number[], from: number, to: number, pad: boolean): number[] | null {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  const maxv = (1 << to) - 1;
  for (const value of data) {
    if (value < 0 || value >> from !== 0) return null;
    acc = (acc << from) | value;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >> bits) & maxv);
    }
    acc &= (1 << bits) - 1;
  }
  if (pad) {
    if (bits > 0) out.push((acc << (to - bits)) & maxv);
  } else if (bits >= from || ((acc << (to - bits)) & maxv) !== 0) {
    return null;
  }
  return out;
}

export interface SegwitAddress {
  readonly version: number;
  readonly program: Uint8Array;
}

/**
 * Decodes a segwit address for the given HRP (`bc` for Bitcoin mainnet) by BIP173 as amended by
 * BIP350: version 0 takes Bech32 and a 20- or 32-byte program; versions 1 to 16 take Bech32m and
 * a 2- to 40-byte program. Null when any rule fails.
 */
export function decodeSegwitAddress(hrp: string, address: string): SegwitAddress | null {
  const decoded = bech32Decode(address);
  if (decoded === null || decoded.hrp !== hrp || decoded.words.length < 1) return null;
  const version = decoded.words[0];
  if (version > 16) return null;
  if (decoded.encoding !== (version === 0 ? 'bech32' : 'bech32m')) return null;
  const program = convertBits(decoded.words.slice(1), 5, 8, false);
  if (program === null || program.length < 2 || program.length > 40) return null;
  if (version === 0 && program.length !== 20 && program.length !== 32) return null;
  return { version, program: Uint8Array.from(program) };
}

/** Encodes a segwit address (Bech32 for version 0, Bech32m above). */
export function encodeSegwitAddress(hrp: string, version: number, program: Uint8Array): string {
  const words = convertBits(Array.from(program), 8, 5, true);
  if (words === null) throw new Error('unreachable: bytes always regroup');
  return bech32Encode(hrp, [version, ...words], version === 0 ? 'bech32' : 'bech32m');
}
