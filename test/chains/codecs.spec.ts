import { bech32, bech32m } from '@scure/base';
import { Address, NETWORK, OutScript, TEST_NETWORK } from '@scure/btc-signer';
import { keccak256 } from 'viem/utils';
import {
  base58Decode,
  base58Encode,
  bitcoinAddressType,
  encodeSegwitAddress,
  isValidAddress,
  normalizeAddress,
  toChecksumAddress,
  type NetworkId,
} from '../../libs/chains/src/registry';

/**
 * The reference vectors of the encodings the registry relies on, run through the libraries it
 * takes them from (viem, @scure/base, @scure/btc-signer) and, where the registry has a rule on
 * top, through the registry.
 */
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));
const EVM: readonly NetworkId[] = ['ethereum', 'polygon', 'base', 'arbitrum'];

describe('keccak256 (viem), under EIP-55 checksums and ERC-20 event topics', () => {
  it('matches the known digests', () => {
    expect(keccak256(new Uint8Array())).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(keccak256(Buffer.from('abc'))).toBe('0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
    // The transfer event topic every ERC-20 watcher filters on.
    expect(keccak256(Buffer.from('Transfer(address,address,uint256)'))).toBe(
      '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    );
  });
});

describe('EIP-55', () => {
  const examples = [
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];

  it('reproduces the EIP-55 examples', () => {
    for (const address of examples) {
      expect(toChecksumAddress(address.toLowerCase())).toBe(address);
      expect(toChecksumAddress(address.toUpperCase().replace('0X', '0x'))).toBe(address);
    }
  });

  it('accepts each example on every EVM network and normalises its lower-case form to it', () => {
    for (const net of EVM) {
      for (const address of examples) {
        expect({ net, address, valid: isValidAddress(net, address) }).toEqual({ net, address, valid: true });
        expect(normalizeAddress(net, address.toLowerCase())).toBe(address);
      }
    }
  });

  it('refuses each example with the case of one letter flipped (a mixed case missing its checksum)', () => {
    const flipCase = (c: string): string => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());
    for (const address of examples) {
      const at = address.slice(2).search(/[a-fA-F]/) + 2;
      const flipped = address.slice(0, at) + flipCase(address[at]) + address.slice(at + 1);
      expect(flipped.toLowerCase()).toBe(address.toLowerCase());
      expect({ flipped, valid: isValidAddress('ethereum', flipped) }).toEqual({ flipped, valid: false });
    }
  });

  it('throws on a malformed address', () => {
    expect(() => toChecksumAddress('0x1234')).toThrow();
  });
});

describe('base58 (@scure/base)', () => {
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

  it('round-trips arbitrary bytes, leading zeros included, and takes exactly the 32-byte ones as Solana keys', () => {
    for (let length = 0; length < 70; length++) {
      const input = Uint8Array.from({ length }, (_, i) => (i < length / 5 ? 0 : (i * 97 + length * 13) & 0xff));
      const text = base58Encode(input);
      expect(hex(base58Decode(text) ?? new Uint8Array([1]))).toBe(hex(input));
      expect({ length, valid: isValidAddress('solana', text) }).toEqual({ length, valid: length === 32 });
    }
  });
});

describe('Base58Check Bitcoin legacy addresses (@scure/btc-signer)', () => {
  const mainnet = Address(NETWORK);
  // The genesis block's reward address: version 0x00 + hash160 of Satoshi's public key.
  const genesis = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';
  const hash160 = '62e907b15cbf27d5425399ebf6f0fb50ebb88f18';

  it('decodes and encodes the genesis reward address', () => {
    const decoded = mainnet.decode(genesis);
    expect(decoded.type).toBe('pkh');
    expect(decoded.type === 'pkh' && hex(decoded.hash)).toBe(hash160);
    expect(mainnet.encode({ type: 'pkh', hash: fromHex(hash160) })).toBe(genesis);
    expect(bitcoinAddressType(genesis)).toBe('p2pkh');
  });

  it('refuses a bad checksum and a payload too short to carry one', () => {
    for (const bad of ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', '1111']) {
      expect(() => mainnet.decode(bad)).toThrow();
      expect({ bad, type: bitcoinAddressType(bad) }).toEqual({ bad, type: null });
    }
  });
});

describe('bech32 / bech32m (@scure/base)', () => {
  /** Which checksum a string carries, or null when neither decoder takes it. */
  const encodingOf = (text: string): 'bech32' | 'bech32m' | null =>
    bech32.decodeUnsafe(text) ? 'bech32' : bech32m.decodeUnsafe(text) ? 'bech32m' : null;

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
      expect({ text, encoding: encodingOf(text) }).toEqual({ text, encoding: 'bech32' });
    }
    for (const text of ['A1LQFN3A', 'a1lqfn3a', 'abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx']) {
      expect({ text, encoding: encodingOf(text) }).toEqual({ text, encoding: 'bech32m' });
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
      expect({ text, encoding: encodingOf(text) }).toEqual({ text, encoding: null });
    }
  });

  it('decodes the BIP350 valid segwit addresses to their output scripts', () => {
    /**
     * The output script by @scure/base alone (witness version opcode, push of the program),
     * checking that version 0 carries a Bech32 checksum and later versions a Bech32m one.
     */
    const script = (address: string): string => {
      const asBech32 = bech32.decodeUnsafe(address);
      const decoded = asBech32 ?? bech32m.decodeUnsafe(address);
      if (!decoded) throw new Error(`not bech32: ${address}`);
      const [version, ...programWords] = decoded.words;
      expect({ address, bech32: asBech32 !== undefined }).toEqual({ address, bech32: version === 0 });
      const program = bech32.fromWords(programWords);
      return hex(Uint8Array.from([version === 0 ? 0 : 0x50 + version, program.length, ...program]));
    };
    /** The output script by @scure/btc-signer, which takes only the standard types. */
    const outScript = (address: string): string => hex(OutScript.encode(Address(NETWORK).decode(address)));

    const standard: Array<[string, string, string]> = [
      ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6', 'p2wpkh'],
      [
        'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
        '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
        'p2tr',
      ],
    ];
    for (const [address, expected, type] of standard) {
      expect(script(address)).toBe(expected);
      expect(outScript(address)).toBe(expected);
      expect(bitcoinAddressType(address)).toBe(type);
    }

    // Valid BIP350 strings whose witness versions or lengths have no spending rules yet: the
    // library decodes them, btc-signer and the registry refuse them as payment addresses.
    const future: Array<[string, string]> = [
      [
        'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
        '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
      ],
      ['BC1SW50QGDZ25J', '6002751e'],
      ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '5210751e76e8199196d454941c45d1b3a323'],
    ];
    for (const [address, expected] of future) {
      expect(script(address)).toBe(expected);
      expect(() => outScript(address)).toThrow(/Unknown witness program/);
      expect({ address, type: bitcoinAddressType(address) }).toEqual({ address, type: null });
    }

    // Testnet addresses decode under their own network only.
    const testnet = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
    expect(Address(TEST_NETWORK).decode(testnet).type).toBe('wpkh');
    expect(() => Address(NETWORK).decode(testnet)).toThrow();
    expect(isValidAddress('bitcoin', testnet)).toBe(false);
  });

  it('round-trips segwit addresses', () => {
    const program = fromHex('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
    expect(encodeSegwitAddress('bc', 1, program)).toBe('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0');
    expect(encodeSegwitAddress('bc', 0, fromHex('751e76e8199196d454941c45d1b3a323f1433bd6'))).toBe(
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    );
  });
});
