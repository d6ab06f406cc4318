import { keccak256 } from './keccak';

/**
 * EIP-55 mixed-case checksum addresses. An EVM address is 0x and 40 hex digits; its EIP-55 form
 * capitalises the i-th letter when the i-th nibble of keccak256(lower-case hex, as ASCII) is 8
 * or more. All-lower and all-upper hex carry no checksum and are accepted as such.
 */
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-55 form of a well-formed address (any case); throws on a malformed one. */
export function toChecksumAddress(address: string): string {
  if (!EVM_ADDRESS.test(address)) throw new TypeError('not an EVM address');
  const hex = address.slice(2).toLowerCase();
  const hash = keccak256(Buffer.from(hex, 'ascii'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? hex[i].toUpperCase() : hex[i];
  }
  return out;
}

/**
 * True for 0x + 40 hex digits that is all lower case, all upper case (no checksum), or mixed
 * case matching its EIP-55 checksum. A mixed-case address with a wrong checksum is a typo.
 */
export function isEvmAddress(address: string): boolean {
  if (!EVM_ADDRESS.test(address)) return false;
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  return toChecksumAddress(address) === address;
}
