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
 * field (400 invalid_request naming the parameter, `metadata[k]` as written). `url` (the request's
 * raw URL) adds the path's encoding rule to the query: a parameter whose name or value is not
 * UTF-8 once percent-decoded (`%FF`, an encoded surrogate `%ED%A0%80`, a cut sequence `%E2%82`,
 * a `%` not followed by two hex digits) is refused the same way — the query parser would
 * otherwise read it as its raw text (audit 2026-11-30 F2, decision 0006 addendum).
 */
export function urlTextRefusal(params: unknown, query: unknown, url?: string): ApiError | null {
  if (findUnsafeText(params)) return notFound();
  const malformed = url === undefined ? null : malformedQueryParameter(url);
  if (malformed !== null) return invalidRequest(malformed, 'The query parameter is malformed (bad percent-encoding or not UTF-8).');
  const unsafe = findUnsafeText(query);
  if (!unsafe) return null;
  const [name, ...keys] = unsafe.field.split('.');
  return invalidRequest(name + keys.map((key) => `[${key}]`).join(''), `The query parameter ${unsafe.reason}.`);
}

/**
 * The first parameter of `url`'s query string whose name or value does not percent-decode to
 * UTF-8, named as the query parser names it (`tag`, `metadata[k]`; `tag[1]` for the second of a
 * repeated name, as the null-character check names it); `query` when the name itself cannot be
 * read. Null when every parameter decodes.
 */
function malformedQueryParameter(url: string): string | null {
  const at = url.indexOf('?');
  if (at < 0 || !url.includes('%', at)) return null; // nothing percent-encoded: nothing to mis-decode
  const pairs = url
    .slice(at + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const [rawName, rawValue] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
      return { name: percentDecoded(rawName), valueOk: percentDecoded(rawValue) !== null };
    });
  for (let i = 0; i < pairs.length; i++) {
    const { name, valueOk } = pairs[i];
    if (name === null) return 'query';
    if (valueOk) continue;
    const same = pairs.filter((p) => p.name === name);
    return same.length > 1 ? `${name}[${same.indexOf(pairs[i])}]` : name;
  }
  return null;
}

/** `text` percent-decoded as a query component (`+` is a space), or null when it is not UTF-8 once decoded. */
function percentDecoded(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}
