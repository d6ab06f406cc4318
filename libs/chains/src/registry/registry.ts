import {
  canonicalAddressForFamily,
  canonicalTxHashForFamily,
  isValidAddressForFamily,
  isValidTxHashForFamily,
} from './address';
import { ASSET_DATA, CARRIAGE_DATA, NETWORK_DATA } from './data';
import { RegistryError } from './errors';
import {
  ASSET_CODES,
  NETWORK_IDS,
  type Asset,
  type AssetCode,
  type AssetOnNetwork,
  type ExplorerTemplates,
  type Network,
  type NetworkFamily,
  type NetworkId,
} from './types';

/** Deployment choices layered over the registry's defaults. */
export interface RegistryOverrides {
  /** Confirmations required per network (a positive integer), e.g. `{ bitcoin: 6 }`. */
  readonly confirmations?: Partial<Record<NetworkId, number>>;
  /**
   * Explorer per network, e.g. `{ solana: { name: 'Solana Explorer', tx:
   * 'https://explorer.solana.com/tx/{hash}', address: 'https://explorer.solana.com/address/{address}' } }`.
   * Templates are http(s) URLs with `{hash}` / `{address}`.
   */
  readonly explorers?: Partial<Record<NetworkId, Partial<ExplorerTemplates>>>;
}

export function isNetworkId(value: unknown): value is NetworkId {
  return typeof value === 'string' && (NETWORK_IDS as readonly string[]).includes(value);
}

export function isAssetCode(value: unknown): value is AssetCode {
  return typeof value === 'string' && (ASSET_CODES as readonly string[]).includes(value);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

function configError(message: string): RegistryError {
  return new RegistryError('invalid_configuration', message);
}

function checkOverrides(overrides: RegistryOverrides): void {
  for (const [id, count] of Object.entries(overrides.confirmations ?? {})) {
    if (!isNetworkId(id)) throw configError(`confirmations override names an unknown network "${id}"`);
    if (count === undefined) continue;
    if (!Number.isSafeInteger(count) || count < 1) {
      throw configError(`confirmations for ${id} must be a positive integer, got ${String(count)}`);
    }
  }
  for (const [id, explorer] of Object.entries(overrides.explorers ?? {})) {
    if (!isNetworkId(id)) throw configError(`explorer override names an unknown network "${id}"`);
    if (explorer === undefined) continue;
    const templates: Array<[string | undefined, string]> = [
      [explorer.tx, '{hash}'],
      [explorer.address, '{address}'],
    ];
    for (const [template, placeholder] of templates) {
      if (template === undefined) continue;
      if (!/^https?:\/\/[^/\s]+\/\S*$/.test(template) || !template.includes(placeholder)) {
        throw configError(`explorer template for ${id} must be an http(s) URL containing ${placeholder}: "${template}"`);
      }
    }
  }
}

/**
 * The registry: assets, networks, decimals, confirmations required, address and hash formats,
 * explorer URLs. Pure and immutable; no I/O, no clock. Build one per deployment with
 * `createRegistry(overrides)`; `defaultRegistry` (and the module-level functions) use the
 * defaults in data.ts.
 */
export class ChainRegistry {
  private readonly networkById: ReadonlyMap<NetworkId, Network>;
  private readonly assetByCode: ReadonlyMap<AssetCode, Asset>;
  private readonly carriage: ReadonlyMap<string, AssetOnNetwork>;

  constructor(overrides: RegistryOverrides = {}) {
    checkOverrides(overrides);
    const networks = new Map<NetworkId, Network>();
    for (const id of NETWORK_IDS) {
      const data = NETWORK_DATA[id];
      networks.set(
        id,
        deepFreeze<Network>({
          id,
          name: data.name,
          family: data.family,
          chainId: data.chainId,
          nativeCurrency: { ...data.nativeCurrency },
          confirmationsRequired: overrides.confirmations?.[id] ?? data.confirmationsRequired,
          blockTimeMs: data.blockTimeMs,
          explorer: { ...data.explorer, ...overrides.explorers?.[id] },
        }),
      );
    }
    const carriage = new Map<string, AssetOnNetwork>();
    for (const entry of CARRIAGE_DATA) {
      const family = NETWORK_DATA[entry.network].family;
      carriage.set(
        `${entry.asset}@${entry.network}`,
        deepFreeze<AssetOnNetwork>({
          asset: entry.asset,
          network: entry.network,
          family,
          decimals: ASSET_DATA[entry.asset].decimals,
          kind: entry.standard === 'native' ? 'native' : 'token',
          standard: entry.standard,
          contract: entry.contract,
          minimumTransfer: entry.minimumTransfer ?? 0,
        }),
      );
    }
    const assets = new Map<AssetCode, Asset>();
    for (const code of ASSET_CODES) {
      assets.set(
        code,
        deepFreeze<Asset>({
          code,
          name: ASSET_DATA[code].name,
          decimals: ASSET_DATA[code].decimals,
          networks: NETWORK_IDS.filter((network) => carriage.has(`${code}@${network}`)),
        }),
      );
    }
    this.networkById = networks;
    this.assetByCode = assets;
    this.carriage = carriage;
  }

  // ---- networks ----------------------------------------------------------------------------

  /** Every network, in display order. */
  networks(): readonly Network[] {
    return [...this.networkById.values()];
  }

  /** One network; RegistryError `unknown_network` when the id is not one. */
  network(id: NetworkId): Network {
    const network = isNetworkId(id) ? this.networkById.get(id) : undefined;
    if (network === undefined) {
      throw new RegistryError('unknown_network', `unknown network "${String(id)}"`, 'network');
    }
    return network;
  }

  family(network: NetworkId): NetworkFamily {
    return this.network(network).family;
  }

  confirmationsRequired(network: NetworkId): number {
    return this.network(network).confirmationsRequired;
  }

  blockTimeMs(network: NetworkId): number {
    return this.network(network).blockTimeMs;
  }

  // ---- assets ------------------------------------------------------------------------------

  /** Every asset, in spec order (USDC, USDT, BTC, ETH, SOL). */
  assets(): readonly Asset[] {
    return [...this.assetByCode.values()];
  }

  /** One asset; RegistryError `unknown_asset` when the code is not one. */
  asset(code: AssetCode): Asset {
    const asset = isAssetCode(code) ? this.assetByCode.get(code) : undefined;
    if (asset === undefined) throw new RegistryError('unknown_asset', `unknown asset "${String(code)}"`, 'asset');
    return asset;
  }

  decimals(asset: AssetCode): number {
    return this.asset(asset).decimals;
  }

  /** Networks carrying the asset, in network display order. */
  networksFor(asset: AssetCode): readonly NetworkId[] {
    return this.asset(asset).networks;
  }

  /** Assets a network carries, in asset order. */
  assetsOn(network: NetworkId): readonly AssetCode[] {
    this.network(network);
    return ASSET_CODES.filter((asset) => this.carriage.has(`${asset}@${network}`));
  }

  /** Whether the network carries the asset (unknown codes throw). */
  supports(asset: AssetCode, network: NetworkId): boolean {
    return this.findAssetOn(asset, network) !== null;
  }

  /** The asset on the network, or null when that network does not carry it. */
  findAssetOn(asset: AssetCode, network: NetworkId): AssetOnNetwork | null {
    this.asset(asset);
    this.network(network);
    return this.carriage.get(`${asset}@${network}`) ?? null;
  }

  /** The asset on the network; RegistryError `asset_unavailable` when it is not carried there. */
  assetOn(asset: AssetCode, network: NetworkId): AssetOnNetwork {
    const found = this.findAssetOn(asset, network);
    if (found === null) {
      throw new RegistryError('asset_unavailable', `${asset} is not available on ${this.network(network).name}`, 'network');
    }
    return found;
  }

  /**
   * The token a contract (or mint) is on a network, for watchers that see transfers; null when
   * it is none of ours. EVM contracts match in any case; Solana mints exactly.
   */
  assetByContract(network: NetworkId, contract: string): AssetOnNetwork | null {
    const evm = this.family(network) === 'evm';
    const wanted = evm ? contract.toLowerCase() : contract;
    for (const entry of this.carriage.values()) {
      if (entry.network !== network || entry.contract === null) continue;
      if ((evm ? entry.contract.toLowerCase() : entry.contract) === wanted) return entry;
    }
    return null;
  }

  /**
   * EVM networks other than `network` that carry `asset`: where a transfer to the same address
   * could arrive by mistake (mark-sent `wrong_network`, spec §4). Empty when `network` is not an
   * EVM network or no other EVM network carries the asset.
   */
  otherEvmNetworksCarrying(asset: AssetCode, network: NetworkId): readonly NetworkId[] {
    if (this.family(network) !== 'evm') return [];
    return this.networksFor(asset).filter((other) => other !== network && this.family(other) === 'evm');
  }

  // ---- addresses and hashes ----------------------------------------------------------------

  /** Whether the address fits the network (format and checksum; never whether it is in use). */
  isValidAddress(network: NetworkId, address: string): boolean {
    return isValidAddressForFamily(this.family(network), address);
  }

  /**
   * The canonical spelling of a valid address (EIP-55 on EVM, lower-case Bech32, base58 as is);
   * RegistryError `invalid_address` when it does not fit the network.
   */
  normalizeAddress(network: NetworkId, address: string): string {
    const family = this.family(network);
    if (!isValidAddressForFamily(family, address)) {
      throw new RegistryError('invalid_address', `not a valid ${this.network(network).name} address`, 'address');
    }
    return canonicalAddressForFamily(family, address);
  }

  /** Whether two valid addresses are the same on the network (false when either is invalid). */
  sameAddress(network: NetworkId, a: string, b: string): boolean {
    const family = this.family(network);
    if (!isValidAddressForFamily(family, a) || !isValidAddressForFamily(family, b)) return false;
    return canonicalAddressForFamily(family, a) === canonicalAddressForFamily(family, b);
  }

  /** Whether the hash fits the network (claim's `invalid_tx_hash`, spec §4). */
  isValidTxHash(network: NetworkId, hash: string): boolean {
    return isValidTxHashForFamily(this.family(network), hash);
  }

  /**
   * The stored spelling of a valid hash: hex in lower case (spec §2), Solana base58 as is;
   * RegistryError `invalid_tx_hash` when it does not fit the network. Does not trim.
   */
  normalizeTxHash(network: NetworkId, hash: string): string {
    const family = this.family(network);
    if (!isValidTxHashForFamily(family, hash)) {
      throw new RegistryError('invalid_tx_hash', `hash does not fit the ${this.network(network).name} network`, 'tx_hash');
    }
    return canonicalTxHashForFamily(family, hash);
  }

  // ---- explorer ----------------------------------------------------------------------------

  /** Explorer link of a transaction (hash normalised); throws `invalid_tx_hash` on a bad hash. */
  explorerTxUrl(network: NetworkId, hash: string): string {
    const normalized = this.normalizeTxHash(network, hash);
    return this.network(network).explorer.tx.replaceAll('{hash}', encodeURIComponent(normalized));
  }

  /** Explorer link of an address (canonical spelling); throws `invalid_address` on a bad one. */
  explorerAddressUrl(network: NetworkId, address: string): string {
    const normalized = this.normalizeAddress(network, address);
    return this.network(network).explorer.address.replaceAll('{address}', encodeURIComponent(normalized));
  }
}

/** A registry with the defaults, adjusted by `overrides` (validated; bad ones throw). */
export function createRegistry(overrides: RegistryOverrides = {}): ChainRegistry {
  return new ChainRegistry(overrides);
}
