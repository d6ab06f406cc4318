import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './api-error';
import { findUnsafeText } from './text-safety';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Deeper bodies are refused before parsing: no request of ours nests more than a few levels,
 *  and recursive code further on (validation, serialisation) must never overflow the stack. */
export const MAX_DEPTH = 32;
/** Keys one object may have: class-transformer's handling of unknown keys is quadratic. */
export const MAX_KEYS_PER_OBJECT = 1000;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Names a body may not use as keys: every member of Object.prototype (`__proto__`,
 * `constructor`, `toString`, `hasOwnProperty`, …) and `prototype`. Libraries further on treat
 * such keys specially (skip, strip, or follow them), so an unknown field of that name could
 * slip past validation; refusing them here keeps "unknown field → 400" true for every name.
 */
const RESERVED_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/**
 * The API's only body parser: `application/json` in UTF-8, at most 1 MiB, valid JSON, a JSON
 * object (not null, an array, a string, a number or a boolean), at most 32 levels deep and 1,000
 * keys an object, no reserved key names, no null characters or unpaired surrogates in any
 * string. Anything else is refused before a handler runs. A body of another content type gets 415;
 * an empty body is no body, whatever type it names.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (request, raw, done) => {
    try {
      checkCharset(request);
      done(null, parseJsonBody(raw as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // any other content type: 415 for a body (spec §7: a body sent without application/json), but
  // a POST with no body that names a type anyway (some clients always send one) has nothing to refuse
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_request, raw, done) => {
    if ((raw as Buffer).length === 0) done(null, undefined);
    else done(new ApiError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.'), undefined);
  });
}

function checkCharset(request: FastifyRequest): void {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(request.headers['content-type'] ?? '');
  if (match && !/^utf-?8$/i.test(match[1])) {
    throw new ApiError('unsupported_media_type', `Send the body as UTF-8 JSON; charset ${match[1]} is not supported.`);
  }
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new ApiError('invalid_json', 'The body is not valid UTF-8.');
  }
  if (text.trim() === '') return undefined;
  checkDepth(text);
  let body: unknown;
  try {
    body = JSON.parse(text); // own "__proto__" properties only: no prototype is ever changed
  } catch (error) {
    throw new ApiError('invalid_json', `The body is not valid JSON: ${(error as Error).message}`);
  }
  checkObject(body);
  checkStructure(body);
  const unsafe = findUnsafeText(body);
  if (unsafe) throw new ApiError('invalid_request', `${unsafe.field} ${unsafe.reason}.`, unsafe.field);
  return body;
}

/**
 * Every body of the API is a JSON object (spec §7: invalid_request). Refused here, once for every
 * route: the validation pipe would take `null` for an empty body (a DTO whose fields are all
 * optional then passes) and name a made-up field for the others.
 */
function checkObject(body: unknown): void {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) return;
  const what = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`;
  throw new ApiError('invalid_request', `The body must be a JSON object, not ${what}.`);
}

/** One pass over the text, outside strings, counting brackets: refuses deep nesting cheaply. */
function checkDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_DEPTH) throw new ApiError('invalid_request', `The body is nested more than ${MAX_DEPTH} levels deep.`);
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
}

/** Keys per object and reserved key names, with the dotted path of the field at fault. */
function checkStructure(body: unknown): void {
  const stack: { value: unknown; path: string }[] = [{ value: body, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: path ? `${path}.${i}` : String(i) }));
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > MAX_KEYS_PER_OBJECT) {
      throw new ApiError('invalid_request', `${path || 'The body'} has more than ${MAX_KEYS_PER_OBJECT} fields.`, path || null);
    }
    for (const key of keys) {
      const field = path ? `${path}.${key}` : key;
      if (RESERVED_KEYS.has(key)) throw new ApiError('invalid_request', `${field}: the name ${key} is reserved and cannot be used as a field.`, field);
      stack.push({ value: (value as Record<string, unknown>)[key], path: field });
    }
  }
}
