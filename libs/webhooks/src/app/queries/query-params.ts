import { WebhookError } from '../../domain/errors';
import { isDeliveryEventType, isEventType } from '../../domain/event-types';
import { DELIVERY_STATUSES, DeliveryStatus } from '../../delivery/delivery-store';

/** Reads one query-string parameter (its value and its name), or refuses it. */
export type Reader<T> = (value: string, name: string) => T;

/** The raw query string of a list request, as the HTTP layer parsed it. */
export type RawQuery = Record<string, unknown>;

/**
 * Reads a list's query string strictly: every parameter must be known and given once; `limit`
 * and `cursor` are left for pageRequest. 400 invalid_request naming the parameter otherwise.
 */
export function readQuery<S extends Record<string, Reader<unknown>>>(
  query: RawQuery | undefined,
  spec: S,
): { values: { [K in keyof S]?: ReturnType<S[K]> }; page: { limit?: unknown; cursor?: unknown } } {
  const values: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(query ?? {})) {
    if (name === 'limit' || name === 'cursor') {
      if (typeof raw !== 'string') throw invalid(name, `${name} must be given once.`);
      continue;
    }
    const read = spec[name];
    if (!read) throw invalid(name, `${name} is not a known parameter of this list.`);
    if (typeof raw !== 'string') throw invalid(name, `${name} must be given once.`);
    values[name] = read(raw, name);
  }
  return { values: values as { [K in keyof S]?: ReturnType<S[K]> }, page: { limit: query?.limit, cursor: query?.cursor } };
}

function invalid(name: string, message: string): WebhookError {
  return new WebhookError('invalid_request', message, name);
}

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
