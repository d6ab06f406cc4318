/**
 * Chain registry (DESIGN.md: "One registry describes assets, networks, decimals, confirmations
 * required, address and hash formats, and explorer URLs. Everything else asks it.").
 *
 * Module-level functions answer from `defaultRegistry` (the documented defaults). A deployment
 * that overrides confirmations or explorers builds its own with `createRegistry(overrides)` and
 * injects that instead; address and hash formats are the same in both.
 */
import { ChainRegistry, createRegistry } from './registry';
import type { Asset, AssetCode, AssetOnNetwork, Network, NetworkFamily, NetworkId } from './types';

export * from './types';
export * from './errors';
export { ChainRegistry, createRegistry, isAssetCode, isNetworkId, type RegistryOverrides } from './registry';
export {
  bitcoinAddressType,
  isValidBitcoinAddress,
  isValidEvmAddress,
  isValidSolanaAddress,
} from './address';
export { toChecksumAddress } from './codec/eip55';
export { base58Decode, base58Encode, base58CheckDecode, base58CheckEncode } from './codec/base58';
export { bech32Decode, bech32Encode, decodeSegwitAddress, encodeSegwitAddress } from './codec/bech32';
export { keccak256 } from './codec/keccak';

/** The registry with default confirmations and explorers. */
export const defaultRegistry: ChainRegistry = createRegistry();

export function networks(): readonly Network[] {
  return defaultRegistry.networks();
}
export function network(id: NetworkId): Network {
  return defaultRegistry.network(id);
}
export function family(id: NetworkId): NetworkFamily {
  return defaultRegistry.family(id);
}
export function confirmationsRequired(id: NetworkId): number {
  return defaultRegistry.confirmationsRequired(id);
}
export function blockTimeMs(id: NetworkId): number {
  return defaultRegistry.blockTimeMs(id);
}
export function assets(): readonly Asset[] {
  return defaultRegistry.assets();
}
export function asset(code: AssetCode): Asset {
  return defaultRegistry.asset(code);
}
export function decimals(code: AssetCode): number {
  return defaultRegistry.decimals(code);
}
export function networksFor(code: AssetCode): readonly NetworkId[] {
  return defaultRegistry.networksFor(code);
}
export function assetsOn(id: NetworkId): readonly AssetCode[] {
  return defaultRegistry.assetsOn(id);
}
export function supports(code: AssetCode, id: NetworkId): boolean {
  return defaultRegistry.supports(code, id);
}
export function findAssetOn(code: AssetCode, id: NetworkId): AssetOnNetwork | null {
  return defaultRegistry.findAssetOn(code, id);
}
export function assetOn(code: AssetCode, id: NetworkId): AssetOnNetwork {
  return defaultRegistry.assetOn(code, id);
}
export function assetByContract(id: NetworkId, contract: string): AssetOnNetwork | null {
  return defaultRegistry.assetByContract(id, contract);
}
export function otherEvmNetworksCarrying(code: AssetCode, id: NetworkId): readonly NetworkId[] {
  return defaultRegistry.otherEvmNetworksCarrying(code, id);
}
export function isValidAddress(id: NetworkId, address: string): boolean {
  return defaultRegistry.isValidAddress(id, address);
}
export function normalizeAddress(id: NetworkId, address: string): string {
  return defaultRegistry.normalizeAddress(id, address);
}
export function sameAddress(id: NetworkId, a: string, b: string): boolean {
  return defaultRegistry.sameAddress(id, a, b);
}
export function isValidTxHash(id: NetworkId, hash: string): boolean {
  return defaultRegistry.isValidTxHash(id, hash);
}
export function normalizeTxHash(id: NetworkId, hash: string): string {
  return defaultRegistry.normalizeTxHash(id, hash);
}
export function explorerTxUrl(id: NetworkId, hash: string): string {
  return defaultRegistry.explorerTxUrl(id, hash);
}
export function explorerAddressUrl(id: NetworkId, address: string): string {
  return defaultRegistry.explorerAddressUrl(id, address);
}
