import { Refusal } from '@lib/domain';

/**
 * Codes the registry refuses with. `asset_unavailable`, `invalid_address` and `invalid_tx_hash`
 * are API error codes as they stand (spec §7: 400 each), so the HTTP layer maps them one to one;
 * `unknown_asset` and `unknown_network` are an `invalid_request` on the named `field`;
 * `invalid_configuration` is a programming or deployment error (bad override), never a client's.
 */
export const REGISTRY_ERROR_CODES = [
  'asset_unavailable',
  'unknown_asset',
  'unknown_network',
  'invalid_address',
  'invalid_tx_hash',
  'invalid_configuration',
] as const;

export type RegistryErrorCode = (typeof REGISTRY_ERROR_CODES)[number];

/** Refusal by the registry. Pure: no HTTP or NestJS types. */
export class RegistryError extends Refusal<RegistryErrorCode> {
  override readonly name = 'RegistryError';
}

export function isRegistryError(error: unknown): error is RegistryError {
  return error instanceof RegistryError;
}
