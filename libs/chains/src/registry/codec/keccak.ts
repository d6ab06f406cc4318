/**
 * Keccak-256 as Ethereum uses it (original Keccak padding 0x01, not SHA3's 0x06), for EIP-55
 * address checksums. node:crypto offers SHA3-256 but not Keccak-256, and the registry takes no
 * packages, so the permutation is here: 64-bit lanes as BigInt, fine for the short inputs
 * (40-character addresses) it hashes. `keccakSponge` is exported so a test can run it with
 * SHA3's padding against node:crypto's sha3-256.
 */
const MASK = (1n << 64n) - 1n;

const ROUND_CONSTANTS = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n,
  0x000000000000808bn, 0x0000000080000001n, 0x8000000080008081n, 0x8000000000008009n,
  0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n,
  0x8000000000008002n, 0x8000000000000080n, 0x000000000000800an, 0x800000008000000an,
  0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
];

/** Rotation offsets r[x + 5y] of the rho step. */
const ROTATIONS = [
  0, 1, 62, 28, 27, //
  36, 44, 6, 55, 20,
  3, 10, 43, 25, 39,
  41, 45, 15, 21, 8,
  18, 2, 61, 56, 14,
].map(BigInt);

function rotl(value: bigint, shift: bigint): bigint {
  if (shift === 0n) return value;
  return ((value << shift) | (value >> (64n - shift))) & MASK;
}

function keccakF1600(state: bigint[]): void {
  const c = new Array<bigint>(5);
  const b = new Array<bigint>(25);
  for (let round = 0; round < 24; round++) {
    // theta
    for (let x = 0; x < 5; x++) c[x] = state[x] ^ state[x + 5] ^ state[x + 10] ^ state[x + 15] ^ state[x + 20];
    for (let x = 0; x < 5; x++) {
      const d = c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1n);
      for (let y = 0; y < 25; y += 5) state[x + y] ^= d;
    }
    // rho and pi: B[y, 2x + 3y] = rot(A[x, y], r[x, y])
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 5; y++) {
        b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(state[x + 5 * y], ROTATIONS[x + 5 * y]);
      }
    }
    // chi
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x++) state[x + y] = b[x + y] ^ (~b[((x + 1) % 5) + y] & MASK & b[((x + 2) % 5) + y]);
    }
    // iota
    state[0] ^= ROUND_CONSTANTS[round];
  }
}

/** The Keccak sponge with capacity 1600 - 8·rate, the given domain byte, and outputLength bytes. */
export function keccakSponge(input: Uint8Array, rate: number, domain: number, outputLength: number): Uint8Array {
  if (outputLength > rate) throw new RangeError('keccakSponge: output longer than one block');
  const state = new Array<bigint>(25).fill(0n);
  const padded = new Uint8Array(Math.floor(input.length / rate) * rate + rate);
  padded.set(input);
  padded[input.length] ^= domain;
  padded[padded.length - 1] ^= 0x80;
  for (let offset = 0; offset < padded.length; offset += rate) {
    for (let lane = 0; lane < rate / 8; lane++) {
      let value = 0n;
      for (let k = 7; k >= 0; k--) value = (value << 8n) | BigInt(padded[offset + lane * 8 + k]);
      state[lane] ^= value;
    }
    keccakF1600(state);
  }
  const out = new Uint8Array(outputLength);
  for (let i = 0; i < outputLength; i++) {
    out[i] = Number((state[i >> 3] >> BigInt(8 * (i & 7))) & 0xffn);
  }
  return out;
}

/** Keccak-256 of the bytes. */
export function keccak256(input: Uint8Array): Uint8Array {
  return keccakSponge(input, 136, 0x01, 32);
}
