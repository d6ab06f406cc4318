/**
 * What the key commands tell the process's authentication cache (BusinessService): a new key's
 * hash (a lookup of it cached before it existed is dropped) and a revoked key's (refused at once
 * in this process, whatever the projection does). Provided in Nest as API_KEY_CACHE.
 */
export interface ApiKeyCache {
  keyCreated(secretHash: string): void;
  keyRevoked(secretHash: string): void;
}

export const API_KEY_CACHE = Symbol('API_KEY_CACHE');
