/**
 * Chain registry (DESIGN.md: "One registry describes assets, networks, decimals, confirmations
 * required, address and hash formats, and explorer URLs. Everything else asks it.").
 *
 * Module-level functions answer from `defaultRegistry` (the documented defaults). A deployment
 * that overrides confirmations or explorers builds its own with `createRegistry(overrides)` and
 * injects that instead; address and hash formats are the same in both.
 */
import { ChainRegistry, createRegistry } from './registry';
import type { AssetCode, NetworkId } from './types';

export * from './types';
export * from './errors';
export { ChainRegistry, createRegistry, isAssetCode, isNetworkId, type RegistryOverrides } from './registry';
export {
  bitcoinAddressType,
  isValidBitcoinAddress,
  isValidEvmAddress,
  isValidSolanaAddress,
} from './address';
export { base58Decode, base58Encode, encodeSegwitAddress, toChecksumAddress } from './encoding';

/** The registry with default confirmations and explorers. */
export const defaultRegistry: ChainRegistry = createRegistry();

/**
 * `base` with the token contracts a deployment names per network (EVM_TOKENS_<NETWORK>: test
 * chains, testnets) in place of the mainnet ones, as its chain watchers read them: what a send
 * is checked against and what a checkout's payment URI names. `base` itself when none is named.
 */
export function registryWithTokens(tokens: Partial<Record<NetworkId, Partial<Record<AssetCode, string>>>>, base: ChainRegistry = defaultRegistry): ChainRegistry {
  if (Object.keys(tokens).length === 0) return base;
  const registry = Object.create(base) as ChainRegistry;
  registry.assetOn = (asset, network) => {
    const on = base.assetOn(asset, network);
    const contract = tokens[network]?.[asset];
    return contract ? { ...on, contract } : on;
  };
  return registry;
}

/**
 * The module-level functions: defaultRegistry's methods, bound to it (`network(id)` is
 * `defaultRegistry.network(id)`), so their signatures and docs are the methods' own.
 */
export const {
  networks,
  network,
  family,
  confirmationsRequired,
  blockTimeMs,
  assets,
  asset,
  decimals,
  networksFor,
  assetsOn,
  supports,
  findAssetOn,
  assetOn,
  assetByContract,
  otherEvmNetworksCarrying,
  isValidAddress,
  normalizeAddress,
  sameAddress,
  isValidTxHash,
  normalizeTxHash,
  explorerTxUrl,
  explorerAddressUrl,
} = boundTo(defaultRegistry);

/** A view of `registry` whose methods are bound to it, so that one taken off it works on its own. */
function boundTo(registry: ChainRegistry): ChainRegistry {
  return new Proxy(registry, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
