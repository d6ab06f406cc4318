/**
 * Types of the chain registry: the one place that says which coins move on which networks, in
 * how many decimals, after how many confirmations, and how their addresses, hashes and explorer
 * links look (DESIGN.md, "Money and chains"; spec §1, §2, §4).
 */

/** The coins a customer can pay with (spec §1). */
export const ASSET_CODES = ['USDC', 'USDT', 'BTC', 'ETH', 'SOL'] as const;
export type AssetCode = (typeof ASSET_CODES)[number];

/** The networks the service knows, in the order lists and menus show them. */
export const NETWORK_IDS = ['ethereum', 'polygon', 'base', 'arbitrum', 'solana', 'bitcoin'] as const;
export type NetworkId = (typeof NETWORK_IDS)[number];

/** Networks of one family share address and hash formats (and, for EVM, addresses themselves). */
export type NetworkFamily = 'evm' | 'solana' | 'bitcoin';

/** Explorer link templates; `{hash}` and `{address}` are the placeholders. */
export interface ExplorerTemplates {
  /** The explorer's name as shown to people, e.g. "Etherscan". */
  readonly name: string;
  /** Link to one transaction, with `{hash}`. */
  readonly tx: string;
  /** Link to one address (account), with `{address}`. */
  readonly address: string;
}

/** The coin a network charges its fees in. */
export interface NativeCurrency {
  readonly symbol: string;
  readonly decimals: number;
  /**
   * The payment asset this native coin is, or null when the network's fee coin is not one the
   * service accepts (Polygon's POL).
   */
  readonly asset: AssetCode | null;
}

export interface Network {
  readonly id: NetworkId;
  /** Display name, e.g. "Arbitrum One". */
  readonly name: string;
  readonly family: NetworkFamily;
  /** EIP-155 chain id for EVM networks; null elsewhere. */
  readonly chainId: number | null;
  readonly nativeCurrency: NativeCurrency;
  /** Confirmations a transfer needs before a payment succeeds (checkout `confirmations.required`). */
  readonly confirmationsRequired: number;
  /** Average time between blocks (slots on Solana), for the simulated block timer. */
  readonly blockTimeMs: number;
  readonly explorer: ExplorerTemplates;
}

export interface Asset {
  readonly code: AssetCode;
  /** Display name, e.g. "USD Coin". */
  readonly name: string;
  /** Smallest-unit exponent: amounts are integers of 10^-decimals of the coin. */
  readonly decimals: number;
  /** Networks that carry this asset, in registry order. */
  readonly networks: readonly NetworkId[];
}

/** How an asset moves on one network. */
export type AssetStandard = 'native' | 'erc20' | 'spl';

/** One asset on one network: what a checkout quotes and a watcher looks for. */
export interface AssetOnNetwork {
  readonly asset: AssetCode;
  readonly network: NetworkId;
  readonly family: NetworkFamily;
  readonly decimals: number;
  /** `native` for the network's own coin; a token otherwise. */
  readonly kind: 'native' | 'token';
  readonly standard: AssetStandard;
  /** ERC-20 contract (EIP-55 form) or SPL mint address; null for a native coin. */
  readonly contract: string | null;
  /**
   * The least, in smallest units, one transfer can bring to a fresh address (a checkout's): SOL's
   * rent-exempt minimum for an account with no data, Bitcoin's dust limit for a P2WPKH output;
   * 0 where the network takes any amount. A remainder below it is quoted at it (decision 0025).
   */
  readonly minimumTransfer: number;
}

/** Kinds of Bitcoin address the registry accepts. */
export type BitcoinAddressType = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr';
