import { keyAllows } from '@lib/businesses';
import { readableTypeSegments } from '@lib/webhooks';
import { RequestAuth } from '../auth/request-auth';

/**
 * The first segments of the event types the caller may read: null (all) except for restricted
 * keys. The webhook and event queries take it (a restricted key sees only what it may read).
 */
export function readableSegments(auth: RequestAuth): string[] | null {
  if (auth.kind !== 'api_key' || auth.key.type !== 'restricted') return null;
  const key = auth.key;
  return readableTypeSegments((resource) => keyAllows(key, resource, 'read'));
}
