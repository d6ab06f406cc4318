import { createHash } from 'node:crypto';
import {
  base58CheckDecode,
  base58CheckEncode,
  base58Decode,
  base58Encode,
  bech32Decode,
  decodeSegwitAddress,
  encodeSegwitAddress,
  keccak256,
  toChecksumAddress,
} from '../../libs/chains/src/registry';
import { keccakSponge } from '../../libs/chains/src/registry/codec/keccak';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));

describe('keccak256', () => {
  it('matches the known digests', () => {
    expect(hex(keccak256(new Uint8Array()))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(hex(keccak256(Buffer.from('abc')))).toBe('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
    // The transfer event topic every ERC-20 watcher filters on.
    expect(hex(keccak256(Buffer.from('Transfer(address,address,uint256)')))).toBe(
      'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    );
  });

  it('is the same permutation as node:crypto sha3-256 when given SHA3 padding', () => {
    for (const length of [0, 1, 31, 32, 135, 136, 137, 271, 272, 273, 1000]) {
      const input = Uint8Array.from({ length }, (_, i) => (i * 131 + length) & 0xff);
      expect(hex(keccakSponge(input, 136, 0x06, 32))).toBe(createHash('sha3-256').update(input).digest('hex'));
    }
  });
});

describe('EIP-55', () => {
  it('reproduces the EIP-55 examples', () => {
    for (const address of [
      '0x52908400098527886E0F7030069857D2E4169EE7',
      '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
      '0xde709f2102306220921060314715629080e2fb77',
      '0x27b1fdb04752bbc536007a920d24acb045561c26',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(toChecksumAddress(address.toLowerCase())).toBe(address);
    }
  });
});

describe('base58', () => {
  // Bitcoin Core's base58_encode_decode.json
  const vectors: Array<[string, string]> = [
    ['', ''],
    ['61', '2g'],
    ['626262', 'a3gV'],
    ['636363', 'aPEr'],
    ['73696d706c792061206c6f6e6720737472696e67', '2cFupjhnEsSn59qHXstmK2ffpLv2'],
    ['00eb15231dfceb60925886b67d065299925915aeb172c06647', '1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L'],
    ['516b6fcd0f', 'ABnLTmg'],
    ['bf4f89001e670274dd', '3SEo3LWLoPntC'],
    ['572e4794', '3EFU7m'],
    ['ecac89cad93923c02321', 'EJDM8drfXA6uyA'],
    ['10c8511e', 'Rt5zm'],
    ['00000000000000000000', '1111111111'],
  ];

  it('encodes and decodes the reference vectors', () => {
    for (const [bytes, text] of vectors) {
      expect(base58Encode(fromHex(bytes))).toBe(text);
      expect(hex(base58Decode(text) ?? new Uint8Array([0xde, 0xad]))).toBe(bytes);
    }
    expect(base58Encode(Buffer.from('Hello World!'))).toBe('2NEpo7TZRRrLZSi2U');
  });

  it('refuses characters outside the alphabet', () => {
    for (const bad of ['0', 'O', 'I', 'l', '+', ' ', 'é', '3EFU7m\n']) expect(base58Decode(bad)).toBeNull();
  });

  it('round-trips arbitrary bytes, leading zeros included', () => {
    for (let length = 0; length < 70; length++) {
      const input = Uint8Array.from({ length }, (_, i) => (i < length / 5 ? 0 : (i * 97 + length * 13) & 0xff));
      expect(hex(base58Decode(base58Encode(input)) ?? new Uint8Array([1]))).toBe(hex(input));
    }
  });

  it('checks Base58Check checksums', () => {
    // The genesis block's reward address: version 0x00 + hash160 of Satoshi's public key.
    const genesis = '0062e907b15cbf27d5425399ebf6f0fb50ebb88f18';
    const payload = base58CheckDecode('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa');
    expect(payload && hex(payload)).toBe(genesis);
    expect(base58CheckEncode(fromHex(genesis))).toBe('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa');
    expect(base58CheckDecode('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3')).toBeNull();
    expect(base58CheckDecode('1111')).toBeNull();
  });
});

describe('bech32 / bech32m', () => {
  it('accepts the BIP173 and BIP350 checksum vectors with the right encoding', () => {
    for (const text of [
      'A12UEL5L',
      'a12uel5l',
      'an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs',
      'abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw',
      '11qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqc8247j',
      'split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w',
      '?1ezyfcl',
    ]) {
      expect({ text, encoding: bech32Decode(text)?.encoding }).toEqual({ text, encoding: 'bech32' });
    }
    for (const text of ['A1LQFN3A', 'a1lqfn3a', 'abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx']) {
      expect({ text, encoding: bech32Decode(text)?.encoding }).toEqual({ text, encoding: 'bech32m' });
    }
  });

  it('refuses the BIP173 invalid strings', () => {
    for (const text of [
      ' 1nwldj5',
      '\x7f1axkwrx',
      '\x801eym55h',
      'an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx',
      'pzry9x0s0muk',
      '1pzry9x0s0muk',
      'x1b4n0q5v',
      'li1dgmt3',
      'de1lg7wt\xff',
      'A1G7SGD8',
      '10a06t8',
      '1qzzfhee',
      'a12UEL5L',
    ]) {
      expect({ text, decoded: bech32Decode(text) }).toEqual({ text, decoded: null });
    }
  });

  it('decodes the BIP350 valid segwit addresses to their output scripts', () => {
    const script = (address: string): string | null => {
      const decoded = decodeSegwitAddress('bc', address);
      if (decoded === null) return null;
      const op = decoded.version === 0 ? 0 : 0x50 + decoded.version;
      return hex(Uint8Array.from([op, decoded.program.length, ...decoded.program]));
    };
    expect(script('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toBe('0014751e76e8199196d454941c45d1b3a323f1433bd6');
    expect(script('bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y')).toBe(
      '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
    );
    expect(script('BC1SW50QGDZ25J')).toBe('6002751e');
    expect(script('bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs')).toBe('5210751e76e8199196d454941c45d1b3a323');
    expect(script('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0')).toBe(
      '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
    );
    // Testnet addresses decode under their own HRP only.
    expect(decodeSegwitAddress('tb', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')).not.toBeNull();
    expect(decodeSegwitAddress('bc', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')).toBeNull();
  });

  it('round-trips segwit addresses', () => {
    const program = fromHex('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
    expect(encodeSegwitAddress('bc', 1, program)).toBe('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0');
    expect(encodeSegwitAddress('bc', 0, fromHex('751e76e8199196d454941c45d1b3a323f1433bd6'))).toBe(
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    );
  });
});
