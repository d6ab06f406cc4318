/**
 * What the key and business commands tell the process's authentication cache (BusinessService):
 * a new key's hash (a lookup of it cached before it existed is dropped), a revoked key's (refused
 * at once in this process, whatever the projection does), and a business whose object changed
 * (suspended, reinstated: every cached lookup of its keys is dropped, so the next request reads
 * the business as the read model now has it). Provided in Nest as API_KEY_CACHE.
 */
export interface ApiKeyCache {
  keyCreated(secretHash: string): void;
  keyRevoked(secretHash: string): void;
  /** A key's grants or name changed (decision 0039): the next request reads it again. */
  keyChanged(secretHash: string): void;
  businessChanged(businessId: string): void;
}

export const API_KEY_CACHE = Symbol('API_KEY_CACHE');
