import type { AssetCode, AssetStandard, Network, NetworkId } from './types';

/**
 * The registry's data. Everything here is a fact about public mainnets (chain ids, token
 * contracts and mints, explorers, block times) or a documented choice of ours (confirmations
 * required). Code never spells a contract, a decimals count or a confirmation count anywhere
 * else: it asks the registry.
 */

/** A network as the data states it: the Network the registry builds, before its id and the overrides. */
export type NetworkData = Omit<Network, 'id'>;

/**
 * Networks, in display order.
 *
 * Confirmations required (defaults; `createRegistry({ confirmations })` overrides them):
 * - ethereum 4: the spec's examples show `required` 4. Four 12-second blocks (~48 s) put a
 *   transfer behind the short reorgs proof-of-stake Ethereum still sees; full finality (two
 *   epochs, ~13 min) is too slow for a checkout.
 * - polygon 32: ~2 s blocks, and Polygon PoS had reorgs of dozens of blocks before its
 *   milestone finality. Milestones now finalise within seconds; 32 blocks (~64 s) waits past
 *   that with margin and keeps Polygon in the same minute as Ethereum.
 * - base 10: an OP Stack rollup; blocks (2 s) come from one sequencer and do not reorg unless the
 *   sequencer misbehaves or the L1 batch is dropped. Depth adds little safety; 10 blocks (~20 s)
 *   waits for the sequencer's output to settle without making the customer wait for L1.
 * - arbitrum 20: the same reasoning for Arbitrum One's sequencer, whose blocks come every
 *   ~0.25 s: 20 blocks is ~5 s.
 * - solana 32: a block with 31 confirmed blocks on top is `finalized` (maximum vote lockout);
 *   32 slots of ~400 ms is ~13 s.
 * - bitcoin 2: ~10-minute blocks; a single block is occasionally orphaned, two confirmations
 *   (~20 min) make reversing an honest payment impractical at checkout sizes. Businesses that
 *   want more (6 is the traditional figure) set an override.
 *
 * Block times are averages, used by the simulated block timer; real watchers count blocks.
 */
export const NETWORK_DATA: { readonly [N in NetworkId]: NetworkData } = {
  ethereum: {
    name: 'Ethereum',
    family: 'evm',
    chainId: 1,
    nativeCurrency: { symbol: 'ETH', decimals: 18, asset: 'ETH' },
    confirmationsRequired: 4,
    blockTimeMs: 12_000,
    explorer: {
      name: 'Etherscan',
      tx: 'https://etherscan.io/tx/{hash}',
      address: 'https://etherscan.io/address/{address}',
    },
  },
  polygon: {
    name: 'Polygon',
    family: 'evm',
    chainId: 137,
    // Polygon PoS pays fees in POL (formerly MATIC), which the service does not take as payment.
    nativeCurrency: { symbol: 'POL', decimals: 18, asset: null },
    confirmationsRequired: 32,
    blockTimeMs: 2_000,
    explorer: {
      name: 'PolygonScan',
      tx: 'https://polygonscan.com/tx/{hash}',
      address: 'https://polygonscan.com/address/{address}',
    },
  },
  base: {
    name: 'Base',
    family: 'evm',
    chainId: 8453,
    nativeCurrency: { symbol: 'ETH', decimals: 18, asset: 'ETH' },
    confirmationsRequired: 10,
    blockTimeMs: 2_000,
    explorer: {
      name: 'BaseScan',
      tx: 'https://basescan.org/tx/{hash}',
      address: 'https://basescan.org/address/{address}',
    },
  },
  arbitrum: {
    name: 'Arbitrum One',
    family: 'evm',
    chainId: 42161,
    nativeCurrency: { symbol: 'ETH', decimals: 18, asset: 'ETH' },
    confirmationsRequired: 20,
    blockTimeMs: 250,
    explorer: {
      name: 'Arbiscan',
      tx: 'https://arbiscan.io/tx/{hash}',
      address: 'https://arbiscan.io/address/{address}',
    },
  },
  solana: {
    name: 'Solana',
    family: 'solana',
    chainId: null,
    nativeCurrency: { symbol: 'SOL', decimals: 9, asset: 'SOL' },
    confirmationsRequired: 32,
    blockTimeMs: 400,
    // Solscan by default; https://explorer.solana.com/tx/{hash} and /address/{address} work too
    // (set them through `createRegistry({ explorers })`).
    explorer: {
      name: 'Solscan',
      tx: 'https://solscan.io/tx/{hash}',
      address: 'https://solscan.io/account/{address}',
    },
  },
  bitcoin: {
    name: 'Bitcoin',
    family: 'bitcoin',
    chainId: null,
    nativeCurrency: { symbol: 'BTC', decimals: 8, asset: 'BTC' },
    confirmationsRequired: 2,
    blockTimeMs: 600_000,
    explorer: {
      name: 'mempool.space',
      tx: 'https://mempool.space/tx/{hash}',
      address: 'https://mempool.space/address/{address}',
    },
  },
};

export interface AssetData {
  readonly name: string;
  /** The same on every network that carries the asset (checked by the tests). */
  readonly decimals: number;
}

/** Assets and their decimals (DESIGN.md, spec §4 POST /wallet/transactions). */
export const ASSET_DATA: { readonly [A in AssetCode]: AssetData } = {
  USDC: { name: 'USD Coin', decimals: 6 },
  USDT: { name: 'Tether USD', decimals: 6 },
  BTC: { name: 'Bitcoin', decimals: 8 },
  ETH: { name: 'Ether', decimals: 18 },
  SOL: { name: 'Solana', decimals: 9 },
};

export interface CarriageData {
  readonly asset: AssetCode;
  readonly network: NetworkId;
  readonly standard: AssetStandard;
  /** Token contract or mint; null for a native coin. */
  readonly contract: string | null;
  /** The least one transfer can bring to a fresh address, in smallest units (AssetOnNetwork.minimumTransfer); absent: any amount. */
  readonly minimumTransfer?: number;
}

/*
 * Which networks carry which asset. The contract and mint strings below are DATA: the canonical
 * mainnet deployments of each issuer (Circle's native USDC, Tether's USDT), copied as published,
 * EVM ones in their EIP-55 form (the tests check each passes the checksum and is the canonical
 * form). They are never built or edited by code.
 *
 * Deliberately absent:
 * - ETH on Polygon: Polygon's native coin is POL; "ETH" there is bridged WETH, an ERC-20 with its
 *   own contract and bridge risk. Accepting it as ETH would let a customer pay a different token
 *   than the one quoted, so Polygon does not carry ETH.
 * - Bridged USDC.e on Polygon and Arbitrum, and USDbC on Base: different tokens from Circle's
 *   native USDC; only the native deployments below count as USDC.
 * - USDT on Base: Tether has no native deployment there.
 */
export const CARRIAGE_DATA: readonly CarriageData[] = [
  { asset: 'USDC', network: 'ethereum', standard: 'erc20', contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
  { asset: 'USDC', network: 'polygon', standard: 'erc20', contract: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
  { asset: 'USDC', network: 'base', standard: 'erc20', contract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' },
  { asset: 'USDC', network: 'arbitrum', standard: 'erc20', contract: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831' },
  { asset: 'USDC', network: 'solana', standard: 'spl', contract: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },

  { asset: 'USDT', network: 'ethereum', standard: 'erc20', contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
  { asset: 'USDT', network: 'polygon', standard: 'erc20', contract: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F' },
  { asset: 'USDT', network: 'arbitrum', standard: 'erc20', contract: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9' },
  { asset: 'USDT', network: 'solana', standard: 'spl', contract: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' },

  { asset: 'ETH', network: 'ethereum', standard: 'native', contract: null },
  { asset: 'ETH', network: 'base', standard: 'native', contract: null },
  { asset: 'ETH', network: 'arbitrum', standard: 'native', contract: null },

  // Bitcoin Core's dust limit for a P2WPKH output (the addresses checkouts get) at its default dust relay fee of 3 sat/vB:
  // a smaller output is not relayed
  { asset: 'BTC', network: 'bitcoin', standard: 'native', contract: null, minimumTransfer: 294 },

  // the rent-exempt minimum of an account with no data (128 bytes of account overhead at 3480 lamports a byte-year, ×2 years):
  // a transfer that leaves a fresh address below it fails (InsufficientFundsForRent)
  { asset: 'SOL', network: 'solana', standard: 'native', contract: null, minimumTransfer: 890_880 },
];
