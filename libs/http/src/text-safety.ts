import { ApiError, invalidRequest, notFound } from './api-error';

/** A lone UTF-16 surrogate: what an unpaired escaped surrogate (`"\ud800"`) decodes to. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface UnsafeText {
  field: string;
  reason: string;
}

/**
 * Finds the first string (value or key) in a parsed body that holds a null character or an
 * unpaired surrogate: such text cannot be stored (PostgreSQL refuses \u0000) or sent on as
 * UTF-8. Returns the dotted path of the field at fault.
 */
export function findUnsafeText(value: unknown, path = ''): UnsafeText | null {
  if (typeof value === 'string') return checkString(value, path || 'body');
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnsafeText(value[i], path ? `${path}.${i}` : String(i));
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      const badKey = checkString(key, field);
      if (badKey) return badKey;
      const found = findUnsafeText(item, field);
      if (found) return found;
    }
  }
  return null;
}

function checkString(text: string, field: string): UnsafeText | null {
  if (text.includes('\u0000')) return { field, reason: 'must not contain null characters' };
  if (LONE_SURROGATE.test(text)) return { field, reason: 'must not contain unpaired surrogate escapes' };
  return null;
}

/**
 * The same rule for what the URL carries, checked before any route runs: a path parameter holding
 * such text names nothing that can exist (404 not_found), a query value holding it is an invalid
 * field (400 invalid_request naming the parameter, `metadata[k]` as written).
 */
export function urlTextRefusal(params: unknown, query: unknown): ApiError | null {
  if (findUnsafeText(params)) return notFound();
  const unsafe = findUnsafeText(query);
  if (!unsafe) return null;
  const [name, ...keys] = unsafe.field.split('.');
  return invalidRequest(name + keys.map((key) => `[${key}]`).join(''), `The query parameter ${unsafe.reason}.`);
}
