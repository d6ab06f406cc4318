import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from './api-error';
import { findUnsafeText } from './text-safety';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The API's only body parser: `application/json`, at most 1 MiB, valid UTF-8, valid JSON, no
 * `__proto__`/`constructor.prototype` keys, no null characters or unpaired surrogates in any
 * string. Anything else is refused before a handler runs. Other content types get 415 (Fastify
 * refuses a body it has no parser for); an empty body is no body.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_request, raw, done) => {
    try {
      done(null, parseJsonBody(raw as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
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
  let body: unknown;
  try {
    body = JSON.parse(text); // own "__proto__" properties, no prototype change
  } catch (error) {
    throw new ApiError('invalid_json', `The body is not valid JSON: ${(error as Error).message}`);
  }
  try {
    if (body !== null && typeof body === 'object') secureJson.scan(body as Record<string, unknown>, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw new ApiError('invalid_request', 'Keys named __proto__ or constructor.prototype are not allowed.', '__proto__');
  }
  const unsafe = findUnsafeText(body);
  if (unsafe) throw new ApiError('invalid_request', `${unsafe.field} ${unsafe.reason}.`, unsafe.field);
  return body;
}
