import {
  ASSET_CODES,
  NETWORK_IDS,
  RegistryError,
  assetByContract,
  assetOn,
  assets,
  assetsOn,
  bitcoinAddressType,
  base58Encode,
  confirmationsRequired,
  createRegistry,
  decimals,
  defaultRegistry,
  explorerAddressUrl,
  explorerTxUrl,
  findAssetOn,
  isAssetCode,
  isNetworkId,
  isValidAddress,
  isValidTxHash,
  network,
  networks,
  networksFor,
  normalizeAddress,
  normalizeTxHash,
  otherEvmNetworksCarrying,
  sameAddress,
  supports,
  toChecksumAddress,
  type AssetCode,
  type NetworkId,
} from '../../libs/chains/src/registry';
import { thrownBy } from '../support/thrown';

const EVM: readonly NetworkId[] = ['ethereum', 'polygon', 'base', 'arbitrum'];

/** The RegistryError a call throws, for asserting on its code and field. */
const thrown = (fn: () => unknown): RegistryError => thrownBy(RegistryError, fn);

/** Deterministic bytes for generated examples (no randomness in tests). */
function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

describe('chain registry: assets and networks', () => {
  it('lists the five assets and six networks in order', () => {
    expect(ASSET_CODES).toEqual(['USDC', 'USDT', 'BTC', 'ETH', 'SOL']);
    expect(assets().map((a) => a.code)).toEqual(['USDC', 'USDT', 'BTC', 'ETH', 'SOL']);
    expect(NETWORK_IDS).toEqual(['ethereum', 'polygon', 'base', 'arbitrum', 'solana', 'bitcoin']);
    expect(networks().map((n) => n.id)).toEqual(['ethereum', 'polygon', 'base', 'arbitrum', 'solana', 'bitcoin']);
  });

  it('has the decimals table of the spec (USDC 6, USDT 6, BTC 8, ETH 18, SOL 9)', () => {
    const table = Object.fromEntries(ASSET_CODES.map((code) => [code, decimals(code)]));
    expect(table).toEqual({ USDC: 6, USDT: 6, BTC: 8, ETH: 18, SOL: 9 });
  });

  it('carries each asset on exactly the documented networks (full matrix)', () => {
    const expected: Record<AssetCode, Record<NetworkId, boolean>> = {
      USDC: { ethereum: true, polygon: true, base: true, arbitrum: true, solana: true, bitcoin: false },
      USDT: { ethereum: true, polygon: true, base: false, arbitrum: true, solana: true, bitcoin: false },
      BTC: { ethereum: false, polygon: false, base: false, arbitrum: false, solana: false, bitcoin: true },
      ETH: { ethereum: true, polygon: false, base: true, arbitrum: true, solana: false, bitcoin: false },
      SOL: { ethereum: false, polygon: false, base: false, arbitrum: false, solana: true, bitcoin: false },
    };
    for (const asset of ASSET_CODES) {
      for (const net of NETWORK_IDS) {
        expect({ asset, net, carried: supports(asset, net) }).toEqual({ asset, net, carried: expected[asset][net] });
        expect(findAssetOn(asset, net) !== null).toBe(expected[asset][net]);
      }
      expect(networksFor(asset)).toEqual(NETWORK_IDS.filter((net) => expected[asset][net]));
    }
    expect(assetsOn('ethereum')).toEqual(['USDC', 'USDT', 'ETH']);
    expect(assetsOn('polygon')).toEqual(['USDC', 'USDT']);
    expect(assetsOn('base')).toEqual(['USDC', 'ETH']);
    expect(assetsOn('arbitrum')).toEqual(['USDC', 'USDT', 'ETH']);
    expect(assetsOn('solana')).toEqual(['USDC', 'USDT', 'SOL']);
    expect(assetsOn('bitcoin')).toEqual(['BTC']);
  });

  it('describes each network: family, chain id, native coin, confirmations, block time', () => {
    const summary = networks().map((n) => [
      n.id,
      n.family,
      n.chainId,
      n.nativeCurrency.symbol,
      n.nativeCurrency.decimals,
      n.nativeCurrency.asset,
      n.confirmationsRequired,
      n.blockTimeMs,
    ]);
    expect(summary).toEqual([
      ['ethereum', 'evm', 1, 'ETH', 18, 'ETH', 4, 12_000],
      ['polygon', 'evm', 137, 'POL', 18, null, 32, 2_000],
      ['base', 'evm', 8453, 'ETH', 18, 'ETH', 10, 2_000],
      ['arbitrum', 'evm', 42161, 'ETH', 18, 'ETH', 20, 250],
      ['solana', 'solana', null, 'SOL', 9, 'SOL', 32, 400],
      ['bitcoin', 'bitcoin', null, 'BTC', 8, 'BTC', 2, 600_000],
    ]);
    expect(network('arbitrum').name).toBe('Arbitrum One');
    expect(confirmationsRequired('ethereum')).toBe(4); // the spec's examples
  });

  it('gives each asset on a network its standard, decimals and contract or mint', () => {
    expect(assetOn('USDC', 'ethereum')).toEqual({
      asset: 'USDC',
      network: 'ethereum',
      family: 'evm',
      decimals: 6,
      kind: 'token',
      standard: 'erc20',
      contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      minimumTransfer: 0,
    });
    // the least a fresh address takes: SOL's rent-exempt minimum, Bitcoin's P2WPKH dust limit; any amount elsewhere
    const minimums = ASSET_CODES.flatMap((asset) => networksFor(asset).map((net) => [`${asset}@${net}`, assetOn(asset, net).minimumTransfer] as const)).filter(([, m]) => m > 0);
    expect(Object.fromEntries(minimums)).toEqual({ 'BTC@bitcoin': 294, 'SOL@solana': 890_880 });
    const contracts = Object.fromEntries(
      ASSET_CODES.flatMap((asset) => networksFor(asset).map((net) => [`${asset}@${net}`, assetOn(asset, net).contract])),
    );
    expect(contracts).toEqual({
      'USDC@ethereum': '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      'USDC@polygon': '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
      'USDC@base': '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      'USDC@arbitrum': '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
      'USDC@solana': 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      'USDT@ethereum': '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      'USDT@polygon': '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
      'USDT@arbitrum': '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9',
      'USDT@solana': 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
      'BTC@bitcoin': null,
      'ETH@ethereum': null,
      'ETH@base': null,
      'ETH@arbitrum': null,
      'SOL@solana': null,
    });
    for (const asset of ASSET_CODES) {
      for (const net of networksFor(asset)) {
        const on = assetOn(asset, net);
        expect(on.decimals).toBe(decimals(asset));
        expect(on.family).toBe(network(net).family);
        if (on.contract === null) {
          expect([on.kind, on.standard]).toEqual(['native', 'native']);
          expect(network(net).nativeCurrency.asset).toBe(asset);
        } else {
          expect(on.kind).toBe('token');
          expect(on.standard).toBe(on.family === 'evm' ? 'erc20' : 'spl');
          // Every contract and mint is a valid address of its network, EVM ones in EIP-55 form.
          expect(isValidAddress(net, on.contract)).toBe(true);
          if (on.family === 'evm') expect(toChecksumAddress(on.contract)).toBe(on.contract);
          expect(normalizeAddress(net, on.contract)).toBe(on.contract);
        }
      }
    }
  });

  it('finds the token a contract or mint is (EVM in any case), and nothing for others', () => {
    expect(assetByContract('ethereum', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48')?.asset).toBe('USDC');
    expect(assetByContract('arbitrum', '0xFD086BC7CD5C481DCC9C85EBE478A1C0B69FCBB9')?.asset).toBe('USDT');
    expect(assetByContract('solana', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB')?.asset).toBe('USDT');
    // Base58 is case-sensitive: a case-changed mint is another key.
    expect(assetByContract('solana', 'es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB')).toBeNull();
    // USDC on Ethereum's contract is not a token on Base; bridged USDC.e on Polygon is not USDC.
    expect(assetByContract('base', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).toBeNull();
    expect(assetByContract('polygon', '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174')).toBeNull();
  });

  it('refuses an asset a network does not carry with RegistryError asset_unavailable', () => {
    for (const [asset, net] of [
      ['ETH', 'polygon'],
      ['USDT', 'base'],
      ['BTC', 'ethereum'],
      ['SOL', 'arbitrum'],
      ['USDC', 'bitcoin'],
    ] as const) {
      const error = thrown(() => assetOn(asset, net));
      expect(error.code).toBe('asset_unavailable');
      expect(error.field).toBe('network');
      expect(error.name).toBe('RegistryError');
      expect(error.message).toContain(asset);
      expect(findAssetOn(asset, net)).toBeNull();
    }
  });

  it('refuses unknown codes with unknown_asset / unknown_network', () => {
    expect(thrown(() => decimals('DOGE' as AssetCode)).code).toBe('unknown_asset');
    expect(thrown(() => assetOn('usdc' as AssetCode, 'ethereum')).code).toBe('unknown_asset');
    expect(thrown(() => network('optimism' as NetworkId)).code).toBe('unknown_network');
    expect(thrown(() => isValidAddress('tron' as NetworkId, 'T...')).field).toBe('network');
    expect(thrown(() => supports('USDC', 'toString' as NetworkId)).code).toBe('unknown_network');
    expect(isAssetCode('USDC')).toBe(true);
    expect(isAssetCode('usdc')).toBe(false);
    expect(isNetworkId('base')).toBe(true);
    expect(isNetworkId('Base')).toBe(false);
    expect(isNetworkId(undefined)).toBe(false);
  });

  it('names the other EVM networks a coin could arrive on by mistake (mark-sent wrong_network)', () => {
    expect(otherEvmNetworksCarrying('USDC', 'ethereum')).toEqual(['polygon', 'base', 'arbitrum']);
    expect(otherEvmNetworksCarrying('USDC', 'base')).toEqual(['ethereum', 'polygon', 'arbitrum']);
    expect(otherEvmNetworksCarrying('USDT', 'arbitrum')).toEqual(['ethereum', 'polygon']);
    expect(otherEvmNetworksCarrying('USDT', 'polygon')).toEqual(['ethereum', 'arbitrum']);
    expect(otherEvmNetworksCarrying('ETH', 'ethereum')).toEqual(['base', 'arbitrum']);
    expect(otherEvmNetworksCarrying('ETH', 'base')).toEqual(['ethereum', 'arbitrum']);
    // Not EVM: no other network shares the address.
    expect(otherEvmNetworksCarrying('USDC', 'solana')).toEqual([]);
    expect(otherEvmNetworksCarrying('SOL', 'solana')).toEqual([]);
    expect(otherEvmNetworksCarrying('BTC', 'bitcoin')).toEqual([]);
  });

  it('returns frozen descriptions that callers cannot change', () => {
    const eth = network('ethereum');
    expect(Object.isFrozen(eth)).toBe(true);
    expect(Object.isFrozen(eth.explorer)).toBe(true);
    expect(Object.isFrozen(assetOn('USDC', 'base'))).toBe(true);
    expect(Object.isFrozen(networksFor('USDC'))).toBe(true);
    expect(() => {
      (eth as { confirmationsRequired: number }).confirmationsRequired = 1;
    }).toThrow(TypeError);
    expect(confirmationsRequired('ethereum')).toBe(4);
  });
});

describe('chain registry: overrides', () => {
  it('overrides confirmations per network without touching the defaults', () => {
    const custom = createRegistry({ confirmations: { bitcoin: 6, ethereum: 12 } });
    expect(custom.confirmationsRequired('bitcoin')).toBe(6);
    expect(custom.confirmationsRequired('ethereum')).toBe(12);
    expect(custom.confirmationsRequired('solana')).toBe(32);
    expect(custom.network('bitcoin').confirmationsRequired).toBe(6);
    expect(confirmationsRequired('bitcoin')).toBe(2);
    expect(defaultRegistry.confirmationsRequired('ethereum')).toBe(4);
  });

  it('overrides an explorer', () => {
    const custom = createRegistry({
      explorers: {
        solana: {
          name: 'Solana Explorer',
          tx: 'https://explorer.solana.com/tx/{hash}',
          address: 'https://explorer.solana.com/address/{address}',
        },
        bitcoin: { tx: 'https://blockstream.info/tx/{hash}' },
      },
    });
    expect(custom.explorerAddressUrl('solana', '11111111111111111111111111111111')).toBe(
      'https://explorer.solana.com/address/11111111111111111111111111111111',
    );
    const txid = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';
    expect(custom.explorerTxUrl('bitcoin', txid)).toBe(`https://blockstream.info/tx/${txid}`);
    // The parts not overridden stay.
    expect(custom.network('bitcoin').explorer.address).toBe('https://mempool.space/address/{address}');
    expect(explorerTxUrl('bitcoin', txid)).toBe(`https://mempool.space/tx/${txid}`);
  });

  it('refuses bad overrides with invalid_configuration', () => {
    for (const overrides of [
      { confirmations: { bitcoin: 0 } },
      { confirmations: { bitcoin: 1.5 } },
      { confirmations: { bitcoin: -3 } },
      { confirmations: { dogecoin: 3 } as Partial<Record<NetworkId, number>> },
      { explorers: { ethereum: { tx: 'https://etherscan.io/tx/' } } },
      { explorers: { ethereum: { address: 'javascript:alert({address})' } } },
      { explorers: { tron: { tx: 'https://tronscan.org/#/transaction/{hash}' } } as never },
    ]) {
      expect(thrown(() => createRegistry(overrides)).code).toBe('invalid_configuration');
    }
  });
});

describe('chain registry: addresses', () => {
  const VITALIK = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';

  it('accepts EVM addresses in lower case, upper case, or with a correct EIP-55 checksum, on every EVM network', () => {
    for (const net of EVM) {
      expect(isValidAddress(net, VITALIK)).toBe(true);
      expect(isValidAddress(net, VITALIK.toLowerCase())).toBe(true);
      expect(isValidAddress(net, `0x${VITALIK.slice(2).toUpperCase()}`)).toBe(true);
      expect(isValidAddress(net, '0x0000000000000000000000000000000000000000')).toBe(true);
    }
  });

  it('refuses malformed EVM addresses and broken checksums', () => {
    const broken = VITALIK.replace('dA6B', 'da6B'); // one letter's case flipped
    expect(broken).not.toBe(VITALIK);
    expect(broken.toLowerCase()).toBe(VITALIK.toLowerCase());
    for (const bad of [
      broken,
      VITALIK.replace('eEd9', 'eed9'),
      VITALIK.slice(0, 41), // 39 hex digits
      `${VITALIK}0`, // 41 hex digits
      VITALIK.slice(2), // no 0x
      `0X${VITALIK.slice(2)}`,
      `0x${'g'.repeat(40)}`,
      ` ${VITALIK}`,
      `${VITALIK}\n`,
      '',
      '0x',
    ]) {
      expect({ bad, valid: isValidAddress('ethereum', bad) }).toEqual({ bad, valid: false });
    }
  });

  it('accepts Solana addresses: base58 decoding to 32 bytes', () => {
    for (const good of [
      '11111111111111111111111111111111', // system program (32 zero bytes)
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', // SPL token program
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', // USDC mint
      '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', // a wallet used in Solana's docs
      'vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', // a real wallet (Solana Labs)
      base58Encode(bytes(32, 7)),
      base58Encode(new Uint8Array(32).fill(0xff)), // the longest: 44 characters
    ]) {
      expect({ good, valid: isValidAddress('solana', good) }).toEqual({ good, valid: true });
    }
    expect(base58Encode(new Uint8Array(32).fill(0xff))).toHaveLength(44);
  });

  it('refuses malformed Solana addresses', () => {
    for (const bad of [
      '1111111111111111111111111111111', // 31 characters
      '111111111111111111111111111111111', // 33 zero bytes
      base58Encode(new Uint8Array(31).fill(0xff)), // 31 bytes
      base58Encode(new Uint8Array(33).fill(0xff)), // 33 bytes, 45 characters
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10', // '0' is not base58
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtOv', // 'O'
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtIv', // 'I'
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtlv', // 'l'
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v ',
      VITALIK,
      '',
    ]) {
      expect({ bad, valid: isValidAddress('solana', bad) }).toEqual({ bad, valid: false });
    }
  });

  it('accepts Bitcoin mainnet P2PKH, P2SH, P2WPKH, P2WSH and P2TR addresses', () => {
    const cases: Array<[string, string]> = [
      ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'p2pkh'],
      ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'p2pkh'], // genesis block reward
      ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'p2sh'],
      ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'p2wpkh'],
      ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'p2wpkh'], // BIP173, upper case
      ['bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', 'p2wsh'], // BIP173
      ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', 'p2tr'], // BIP350
    ];
    for (const [address, type] of cases) {
      expect({ address, valid: isValidAddress('bitcoin', address) }).toEqual({ address, valid: true });
      expect(bitcoinAddressType(address)).toBe(type);
    }
  });

  it('refuses corrupted, testnet, non-standard and BIP350-invalid Bitcoin addresses', () => {
    for (const bad of [
      // corrupted copies of valid ones
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3',
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLz',
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNV',
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdp',
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5md',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj1',
      'Bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', // mixed case
      // testnet
      'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
      'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn',
      '2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc',
      // valid segwit, but future witness versions or lengths without spending rules
      'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', // v1, 40 bytes
      'BC1SW50QGDZ25J', // v16
      'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', // v2
      // BIP350's invalid addresses
      'tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd',
      'BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL',
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh',
      'bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4',
      'BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R',
      'bc1pw5dgrnzv',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav',
      'BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf',
      'bc1gmk9yu',
      'bc1',
      // other families and junk
      VITALIK,
      '11111111111111111111111111111111',
      '',
    ]) {
      expect({ bad, valid: isValidAddress('bitcoin', bad) }).toEqual({ bad, valid: false });
    }
  });

  it('keeps families apart', () => {
    expect(isValidAddress('solana', VITALIK)).toBe(false);
    expect(isValidAddress('bitcoin', VITALIK)).toBe(false);
    expect(isValidAddress('ethereum', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(false);
    expect(isValidAddress('base', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq')).toBe(false);
    // A Bitcoin P2PKH address is 34 base58 characters but decodes to 25 bytes, not a Solana key.
    expect(isValidAddress('solana', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toBe(false);
    expect(isValidAddress('ethereum', 42 as unknown as string)).toBe(false);
  });

  it('normalises addresses to one spelling and compares them', () => {
    expect(normalizeAddress('polygon', VITALIK.toLowerCase())).toBe(VITALIK);
    expect(normalizeAddress('bitcoin', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toBe(
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    );
    expect(normalizeAddress('bitcoin', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toBe('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2');
    expect(normalizeAddress('solana', '11111111111111111111111111111111')).toBe('11111111111111111111111111111111');
    const error = thrown(() => normalizeAddress('ethereum', VITALIK.replace('dA6B', 'da6B')));
    expect([error.code, error.field]).toEqual(['invalid_address', 'address']);

    expect(sameAddress('ethereum', VITALIK, VITALIK.toLowerCase())).toBe(true);
    expect(sameAddress('ethereum', VITALIK, '0x0000000000000000000000000000000000000000')).toBe(false);
    expect(sameAddress('ethereum', 'nonsense', 'nonsense')).toBe(false);
    expect(
      sameAddress('bitcoin', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'),
    ).toBe(true);
  });
});

describe('chain registry: transaction hashes', () => {
  const EVM_HASH = '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060';
  const TXID = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b'; // genesis coinbase
  const SIGNATURE = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

  it('accepts 0x + 64 hex on EVM networks, in any case', () => {
    for (const net of EVM) {
      expect(isValidTxHash(net, EVM_HASH)).toBe(true);
      expect(isValidTxHash(net, `0x${EVM_HASH.slice(2).toUpperCase()}`)).toBe(true);
    }
    for (const bad of [
      EVM_HASH.slice(0, 65), // 63 hex
      `${EVM_HASH}0`, // 65 hex
      EVM_HASH.slice(2), // no 0x
      `0X${EVM_HASH.slice(2)}`,
      `${EVM_HASH.slice(0, 65)}g`,
      ` ${EVM_HASH}`,
      '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', // an address
      SIGNATURE,
      '',
    ]) {
      expect({ bad, valid: isValidTxHash('ethereum', bad) }).toEqual({ bad, valid: false });
    }
  });

  it('accepts 64 hex without 0x on Bitcoin', () => {
    expect(isValidTxHash('bitcoin', TXID)).toBe(true);
    expect(isValidTxHash('bitcoin', TXID.toUpperCase())).toBe(true);
    for (const bad of [`0x${TXID}`, TXID.slice(1), `${TXID}a`, TXID.replace('a', 'z'), SIGNATURE, '']) {
      expect({ bad, valid: isValidTxHash('bitcoin', bad) }).toEqual({ bad, valid: false });
    }
  });

  it('accepts base58 signatures of 64 bytes on Solana', () => {
    expect(isValidTxHash('solana', SIGNATURE)).toBe(true);
    expect(isValidTxHash('solana', base58Encode(bytes(64, 99)))).toBe(true);
    expect(isValidTxHash('solana', '1'.repeat(64))).toBe(true); // 64 zero bytes
    for (const bad of [
      base58Encode(bytes(63, 5)),
      base58Encode(bytes(65, 5)),
      '1'.repeat(65),
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', // an address: 32 bytes
      `${SIGNATURE.slice(0, -1)}0`,
      EVM_HASH,
      TXID,
      '',
    ]) {
      expect({ bad, valid: isValidTxHash('solana', bad) }).toEqual({ bad, valid: false });
    }
  });

  it('stores hex hashes in lower case and leaves base58 alone', () => {
    expect(normalizeTxHash('arbitrum', EVM_HASH.toUpperCase().replace('0X', '0x'))).toBe(EVM_HASH);
    expect(normalizeTxHash('bitcoin', TXID.toUpperCase())).toBe(TXID);
    expect(normalizeTxHash('solana', SIGNATURE)).toBe(SIGNATURE);
  });

  it('refuses a hash that does not fit the network with invalid_tx_hash', () => {
    for (const [net, hash] of [
      ['ethereum', TXID],
      ['bitcoin', EVM_HASH],
      ['solana', EVM_HASH],
      ['polygon', ` ${EVM_HASH}`],
    ] as const) {
      const error = thrown(() => normalizeTxHash(net, hash));
      expect([error.code, error.field]).toEqual(['invalid_tx_hash', 'tx_hash']);
      expect(error.message).toMatch(/hash does not fit/);
    }
  });
});

describe('chain registry: explorer URLs', () => {
  const EVM_HASH = '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060';
  const VITALIK = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';

  it('links transactions on each network (hex in lower case)', () => {
    const upper = `0x${EVM_HASH.slice(2).toUpperCase()}`;
    expect(explorerTxUrl('ethereum', upper)).toBe(`https://etherscan.io/tx/${EVM_HASH}`);
    expect(explorerTxUrl('polygon', EVM_HASH)).toBe(`https://polygonscan.com/tx/${EVM_HASH}`);
    expect(explorerTxUrl('base', EVM_HASH)).toBe(`https://basescan.org/tx/${EVM_HASH}`);
    expect(explorerTxUrl('arbitrum', EVM_HASH)).toBe(`https://arbiscan.io/tx/${EVM_HASH}`);
    const signature = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
    expect(explorerTxUrl('solana', signature)).toBe(`https://solscan.io/tx/${signature}`);
    const txid = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';
    expect(explorerTxUrl('bitcoin', txid.toUpperCase())).toBe(`https://mempool.space/tx/${txid}`);
  });

  it('links addresses on each network (canonical spelling)', () => {
    expect(explorerAddressUrl('ethereum', VITALIK.toLowerCase())).toBe(`https://etherscan.io/address/${VITALIK}`);
    expect(explorerAddressUrl('polygon', VITALIK)).toBe(`https://polygonscan.com/address/${VITALIK}`);
    expect(explorerAddressUrl('base', VITALIK)).toBe(`https://basescan.org/address/${VITALIK}`);
    expect(explorerAddressUrl('arbitrum', VITALIK)).toBe(`https://arbiscan.io/address/${VITALIK}`);
    expect(explorerAddressUrl('solana', 'vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg')).toBe(
      'https://solscan.io/account/vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg',
    );
    expect(explorerAddressUrl('bitcoin', 'BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ')).toBe(
      'https://mempool.space/address/bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    );
  });

  it('refuses to link what does not fit the network', () => {
    expect(thrown(() => explorerTxUrl('bitcoin', EVM_HASH)).code).toBe('invalid_tx_hash');
    expect(thrown(() => explorerTxUrl('ethereum', '0x1234/../../evil')).code).toBe('invalid_tx_hash');
    expect(thrown(() => explorerAddressUrl('solana', VITALIK)).code).toBe('invalid_address');
  });
});
