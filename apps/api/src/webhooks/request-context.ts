import { keyAllows } from '@lib/businesses';
import { ApiError } from '@lib/http';
import { DELIVERY_STATUSES, DeliveryStatus, isDeliveryEventType, isEventType, readableTypeSegments } from '@lib/webhooks';
import { RequestAuth } from '../auth/request-auth';

/** The first segments of the event types the caller may read: null (all) except for restricted keys. */
export function readableSegments(auth: RequestAuth): string[] | null {
  if (auth.kind !== 'api_key' || auth.key.type !== 'restricted') return null;
  const key = auth.key;
  return readableTypeSegments((resource) => keyAllows(key, resource, 'read'));
}

type Reader<T> = (value: string, name: string) => T;

/**
 * Reads a query string strictly: every parameter must be known and given once; `limit` and
 * `cursor` are left for pageRequest. 400 invalid_request naming the parameter otherwise.
 */
export function readQuery<S extends Record<string, Reader<unknown>>>(
  query: Record<string, unknown>,
  spec: S,
): { values: { [K in keyof S]?: ReturnType<S[K]> }; page: { limit?: unknown; cursor?: unknown } } {
  const values: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(query ?? {})) {
    if (name === 'limit' || name === 'cursor') {
      if (typeof raw !== 'string') throw new ApiError('invalid_request', `${name} must be given once.`, name);
      continue;
    }
    const read = spec[name];
    if (!read) throw new ApiError('invalid_request', `${name} is not a known parameter of this list.`, name);
    if (typeof raw !== 'string') throw new ApiError('invalid_request', `${name} must be given once.`, name);
    values[name] = read(raw, name);
  }
  return { values: values as { [K in keyof S]?: ReturnType<S[K]> }, page: { limit: query?.limit, cursor: query?.cursor } };
}

const invalid = (name: string, message: string) => new ApiError('invalid_request', message, name);

export const readers = {
  status: ((value, name) => {
    if (!(DELIVERY_STATUSES as readonly string[]).includes(value)) throw invalid(name, `${name} is one of ${DELIVERY_STATUSES.join(', ')}.`);
    return value as DeliveryStatus;
  }) as Reader<DeliveryStatus>,
  deliveryEventType: ((value, name) => {
    if (!isDeliveryEventType(value)) throw invalid(name, `${name} is not an event type.`);
    return value;
  }) as Reader<string>,
  eventType: ((value, name) => {
    if (!isEventType(value)) throw invalid(name, `${name} is not an event type.`);
    return value;
  }) as Reader<string>,
  id: (prefix: string): Reader<string> => (value, name) => {
    if (!new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`).test(value)) throw invalid(name, `${name} must be an id starting with ${prefix}_.`);
    return value;
  },
  objectId: ((value, name) => {
    if (!/^[a-z]{2,8}_[0-9A-Za-z]{1,64}$/.test(value)) throw invalid(name, `${name} must be an object id (such as pmt_…).`);
    return value;
  }) as Reader<string>,
};
