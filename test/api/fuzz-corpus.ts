/**
 * The malformed-body corpus of test/api/fuzz.e2e.ts, generated around one realistic body
 * (VALID_ORDER, the probe DTO's shape). Every case is a request the API must refuse with a 4xx
 * §7 envelope and nothing stored, whichever POST route it reaches.
 */

export const MIB = 1024 * 1024;

/** A body the probe route accepts: nested objects, an integer amount, bounded strings, string metadata. */
export const VALID_ORDER = {
  amount: 1500,
  currency: 'usd',
  description: 'Two coffees',
  customer: { name: 'Ada Lovelace', email: 'ada@example.com', address: { line1: '1 Main St', country: 'US' } },
  metadata: { order_id: 'A-1' },
  tags: ['coffee'],
  capture: true,
};

/** What refuses a case. */
export type Expectation =
  /** The body parser or Fastify, before any route code: the same answer on every route. */
  | { status: number; code: string; field?: string | null }
  /** Valid JSON of the wrong shape: the route's DTO refuses it (on the probe routes: 400 invalid_request, `field` when given). */
  | { dto: true; field?: string; fieldPrefix?: boolean }
  /** Any 4xx envelope (more than one refusal is right, e.g. 415 or 400). */
  | { any4xx: true };

export interface HttpCase {
  kind: 'http';
  name: string;
  /** Content-Type header: default application/json; null sends none. */
  contentType?: string | null;
  headers?: Record<string, string>;
  body: Buffer;
  /** Send without Content-Length (chunked); a request without any framing is a socket case. */
  chunked?: boolean;
  /** At least 256 KiB or costly to refuse (sent fewer times on routes other than the probe's). */
  heavy?: boolean;
  /** Generated from the probe DTO's fields (a rotating share of them goes to the other routes). */
  generated?: boolean;
  expect: Expectation;
}

/** Bytes written straight to a socket: framing Node's client would not produce (Content-Length lies). */
export interface SocketCase {
  kind: 'socket';
  name: string;
  /** The request's bytes for a path and the Host/auth/idempotency header lines. */
  build(path: string, headerLines: string[]): Buffer;
  /** When the app answers (with a request id), the status it must answer with; any 4xx otherwise. */
  status?: number;
  /** End our side after writing (the server sees EOF mid-body). */
  halfClose?: boolean;
  /** Milliseconds to wait for an answer before giving up (a server waiting for more bytes is fine). */
  timeoutMs: number;
}

export type FuzzCase = HttpCase | SocketCase;

// ---------------------------------------------------------------------------------------------
// helpers

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) node = node[part] as Record<string, unknown>;
  node[parts[parts.length - 1]] = value;
}

function deletePath(target: Record<string, unknown>, path: string): void {
  const parts = path.split('.');
  let node = target as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) node = node[part] as Record<string, unknown>;
  delete node[parts[parts.length - 1]];
}

/** VALID_ORDER with one path set (JSON.stringify'd). */
export function orderWith(path: string, value: unknown): string {
  const body = clone(VALID_ORDER) as unknown as Record<string, unknown>;
  setPath(body, path, value);
  return JSON.stringify(body);
}

/** VALID_ORDER with `path` replaced by raw JSON text (numbers JSON.stringify cannot write, deep nesting). */
export function orderWithRaw(path: string, rawJson: string): string {
  const marker = '__RAW_VALUE_MARKER__';
  return orderWith(path, marker).replace(JSON.stringify(marker), rawJson);
}

/** VALID_ORDER as text with extra raw members appended at the top level (`"k":v,...`). */
function orderPlus(rawMembers: string): string {
  return `${JSON.stringify(VALID_ORDER).slice(0, -1)},${rawMembers}}`;
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');
/** A body from text and raw bytes (invalid UTF-8 needs bytes). */
const bytes = (...parts: (string | number[] | Buffer)[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? utf8(part) : Buffer.isBuffer(part) ? part : Buffer.from(part))));

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
const deepMixed = (depth: number) => '[{"a":'.repeat(depth) + '1' + '}]'.repeat(depth);

const INVALID_JSON = { status: 400, code: 'invalid_json', field: null } as const;
const INVALID_REQUEST = (field?: string | null) => ({ status: 400, code: 'invalid_request', ...(field === undefined ? {} : { field }) });
const PROTO = { status: 400, code: 'invalid_request' } as const;
const TOO_LARGE = { status: 413, code: 'payload_too_large', field: null } as const;
const NOT_JSON = { status: 415, code: 'unsupported_media_type', field: null } as const;
/** Valid JSON that is not an object (null, an array, a string, a number, a boolean): refused before any route code. */
const NOT_AN_OBJECT = { status: 400, code: 'invalid_request', field: null } as const;
const DTO = (field?: string, fieldPrefix = false): Expectation => ({ dto: true, ...(field === undefined ? {} : { field, fieldPrefix }) });
/** A key named like an Object.prototype member: the parser refuses it on every route, naming it. */
const RESERVED = (field: string): Expectation => ({ status: 400, code: 'invalid_request', field });
/** Deeper than the parser's bound (32): refused before any route code. */
const TOO_DEEP = { status: 400, code: 'invalid_request', field: null } as const;
const RESERVED_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

// ---------------------------------------------------------------------------------------------
// wrong types for every field of the probe DTO (and the top level)

type FieldType = 'int' | 'text' | 'short_text' | 'currency' | 'email' | 'country' | 'object' | 'record' | 'array' | 'boolean' | 'record_value' | 'array_item';

interface FieldSpec {
  path: string;
  type: FieldType;
  optional: boolean;
  /** The field the API names: a value inside metadata or tags is the container's fault. */
  reported?: string;
  /** Max length for strings: one more is refused. */
  max?: number;
}

export const FIELDS: FieldSpec[] = [
  { path: 'amount', type: 'int', optional: false },
  { path: 'currency', type: 'currency', optional: false },
  { path: 'description', type: 'text', optional: false, max: 500 },
  { path: 'customer', type: 'object', optional: false },
  { path: 'customer.name', type: 'text', optional: false, max: 80 },
  { path: 'customer.email', type: 'email', optional: true, max: 254 },
  { path: 'customer.address', type: 'object', optional: true },
  { path: 'customer.address.line1', type: 'text', optional: false, max: 100 },
  { path: 'customer.address.country', type: 'country', optional: false },
  { path: 'metadata', type: 'record', optional: true },
  { path: 'metadata.order_id', type: 'record_value', optional: false, reported: 'metadata', max: 500 },
  { path: 'tags', type: 'array', optional: true },
  { path: 'tags.0', type: 'array_item', optional: false, reported: 'tags', max: 40 },
  { path: 'capture', type: 'boolean', optional: true },
];

const WRONG_VALUES: [string, Json][] = [
  ['null', null],
  ['true', true],
  ['false', false],
  ['0', 0],
  ['1', 1],
  ['-1', -1],
  ['1.5', 1.5],
  ['empty string', ''],
  ['"x"', 'x'],
  ['numeric string "1500"', '1500'],
  ['empty array', []],
  ['array [1]', [1]],
  ['empty object', {}],
  ['object {"a":1}', { a: 1 }],
];

/** Whether the value is acceptable for the field (such values are not wrong types). */
function acceptable(field: FieldSpec, value: Json): boolean {
  if (value === null) return field.optional;
  switch (field.type) {
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 100_000_000;
    case 'text':
      return typeof value === 'string' && value.length > 0;
    case 'short_text':
    case 'record_value':
    case 'array_item':
      return typeof value === 'string';
    case 'currency':
      return value === 'usd' || value === 'eur';
    case 'email':
      return typeof value === 'string' && /^[^@\s]+@[^@\s]+\.[a-z]+$/.test(value);
    case 'country':
      return typeof value === 'string' && /^[A-Z]{2}$/.test(value);
    case 'object':
      return false; // {} lacks the required members, {"a":1} has an unknown one
    case 'record':
      return typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
    case 'array':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'boolean':
      return typeof value === 'boolean';
  }
}

function wrongTypeCases(): HttpCase[] {
  const cases: HttpCase[] = [];
  for (const field of FIELDS) {
    const reported = field.reported ?? field.path;
    const objectish = field.type === 'object';
    for (const [label, value] of WRONG_VALUES) {
      if (acceptable(field, value)) continue;
      cases.push({
        kind: 'http',
        name: `wrong type: ${field.path} = ${label}`,
        generated: true,
        body: utf8(orderWith(field.path, value)),
        expect: DTO(reported, objectish),
      });
    }
    if (field.max !== undefined) {
      cases.push({ kind: 'http', name: `too long: ${field.path} of ${field.max + 1} characters`, generated: true, body: utf8(orderWith(field.path, 'x'.repeat(field.max + 1))), expect: DTO(reported) });
    }
  }
  for (const field of FIELDS.filter((f) => !f.optional)) {
    const body = clone(VALID_ORDER) as unknown as Record<string, unknown>;
    deletePath(body, field.path);
    if (field.reported) continue; // removing metadata.order_id / tags.0 leaves a valid body
    cases.push({ kind: 'http', name: `missing field: ${field.path}`, generated: true, body: utf8(JSON.stringify(body)), expect: DTO(field.path) });
  }
  cases.push({ kind: 'http', name: 'missing field: everything ({})', body: utf8('{}'), expect: DTO() });
  return cases;
}

/** Every body is a JSON object: anything else as the whole body is refused by the parser, on every route (field null). */
function topLevelCases(): HttpCase[] {
  const tops: [string, string][] = [
    ['array', '[]'],
    ['array holding the valid body', `[${JSON.stringify(VALID_ORDER)}]`],
    ['array holding an empty object', '[{}]'],
    ['array holding null', '[null]'],
    ['string', '"hello"'],
    ['empty string', '""'],
    ['string holding the valid body', JSON.stringify(JSON.stringify(VALID_ORDER))],
    ['number', '1500'],
    ['zero', '0'],
    ['negative fraction', '-1.5'],
    ['null', 'null'],
    ['null between white space', ' \r\n null \t'],
    ['true', 'true'],
    ['false', 'false'],
  ];
  return tops.map(([label, text]) => ({ kind: 'http', name: `top level is ${label}`, body: utf8(text), expect: NOT_AN_OBJECT }));
}

function unknownFieldCases(): HttpCase[] {
  const top: [string, Json][] = [
    ['id', 'ord_123'],
    ['business_id', 'biz_123'],
    ['status', 'succeeded'],
    ['livemode', true],
    ['created_at', '2020-01-01T00:00:00Z'],
    ['amount_received', 1500],
    ['Amount', 1500],
    ['amount ', 1500],
    ['', 'empty key'],
    [' ', 'space key'],
    ['metadata.order_id', 'dotted key'],
    ['toString', 'x'],
    ['hasOwnProperty', 1],
    ['valueOf', {}],
    ['prototype', { polluted: 'yes' }],
    ['constructor', 'x'],
    ['constructor', { polluted: 'yes' }],
    ['__defineGetter__', 'x'],
    ['ключ', 'unicode key'],
  ];
  const cases: HttpCase[] = top.map(([key, value]) => ({
    kind: 'http',
    name: `unknown field at top level: ${JSON.stringify(key)} = ${JSON.stringify(value)}`,
    body: utf8(orderPlus(`${JSON.stringify(key)}:${JSON.stringify(value)}`)),
    expect: RESERVED_NAMES.has(key) ? RESERVED(key) : DTO(key),
  }));
  cases.push(
    { kind: 'http', name: 'unknown field in customer', body: utf8(orderWith('customer.role', 'admin')), expect: DTO('customer.role') },
    { kind: 'http', name: 'unknown field in customer.address', body: utf8(orderWith('customer.address.zip', '12345')), expect: DTO('customer.address.zip') },
    { kind: 'http', name: 'constructor key in customer', body: utf8(orderWith('customer.constructor', { name: 'x' })), expect: RESERVED('customer.constructor') },
    { kind: 'http', name: 'prototype key in customer.address', body: utf8(orderWith('customer.address.prototype', { polluted: 'yes' })), expect: RESERVED('customer.address.prototype') },
    { kind: 'http', name: 'hasOwnProperty key in metadata (not a string)', body: utf8(orderWith('metadata.hasOwnProperty', 1)), expect: RESERVED('metadata.hasOwnProperty') },
    { kind: 'http', name: 'constructor key in metadata (an object)', body: utf8(orderWith('metadata.constructor', { polluted: 'yes' })), expect: RESERVED('metadata.constructor') },
    { kind: 'http', name: 'only unknown fields', body: utf8('{"zz":1,"yy":2}'), expect: DTO() },
  );
  return cases;
}

function numberCases(): HttpCase[] {
  const numbers: [string, string][] = [
    ['1e308', '1e308'],
    ['-1e308', '-1e308'],
    ['1e309 (Infinity when parsed)', '1e309'],
    ['-1e309', '-1e309'],
    ['9007199254740993 (past 2^53)', '9007199254740993'],
    ['-9007199254740993', '-9007199254740993'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['-0', '-0'],
    ['1e-400 (0 when parsed)', '1e-400'],
    ['5e-324', '5e-324'],
    ['1500.5', '1500.5'],
    ['-1500', '-1500'],
    ['99 (below the minimum)', '99'],
    ['100000001 (above the maximum)', '100000001'],
  ];
  const cases: HttpCase[] = numbers.map(([label, text]) => ({ kind: 'http', name: `amount = ${label}`, body: utf8(orderWithRaw('amount', text)), expect: DTO('amount') }));
  const numericStrings = ['1500', ' 1500', '1500 ', '+1500', '1.5e3', '0x5DC', '1_500', 'NaN', 'Infinity', '-0', '1500.0', '١٥٠٠'];
  for (const text of numericStrings) cases.push({ kind: 'http', name: `amount = numeric string ${JSON.stringify(text)}`, body: utf8(orderWith('amount', text)), expect: DTO('amount') });
  cases.push(
    { kind: 'http', name: 'capture = "true" (string)', body: utf8(orderWith('capture', 'true')), expect: DTO('capture') },
    { kind: 'http', name: 'capture = 1e308', body: utf8(orderWithRaw('capture', '1e308')), expect: DTO('capture') },
    { kind: 'http', name: 'customer.name = 9007199254740993', body: utf8(orderWithRaw('customer.name', '9007199254740993')), expect: DTO('customer.name') },
  );
  // not JSON numbers at all
  const notJson = ['NaN', 'Infinity', '-Infinity', '+1500', '01500', '.5', '1500.', '0x5DC', '1_500', '1e', '--1'];
  for (const text of notJson) cases.push({ kind: 'http', name: `amount = ${text} (not a JSON number)`, body: utf8(orderWithRaw('amount', text)), expect: INVALID_JSON });
  return cases;
}

function deepCases(): HttpCase[] {
  // The parser bounds the depth at 32 levels: deeper is 400 invalid_request on every route.
  const DEEP = TOO_DEEP;
  const cases: HttpCase[] = [
    { kind: 'http', name: 'top level: objects 32 levels deep (the bound)', body: utf8(deepObject(32)), expect: DTO() },
    { kind: 'http', name: 'metadata: objects 31 levels deep (within the bound)', body: utf8(orderWithRaw('metadata', deepObject(30))), expect: DTO('metadata') },
    { kind: 'http', name: 'top level: arrays 33 levels deep', body: utf8(deepArray(33)), expect: TOO_DEEP },
    { kind: 'http', name: 'top level: arrays 64 levels deep', body: utf8(deepArray(64)), expect: TOO_DEEP },
    { kind: 'http', name: 'metadata: objects 64 levels deep', body: utf8(orderWithRaw('metadata', deepObject(64))), expect: TOO_DEEP },
    { kind: 'http', name: '__proto__ 10000 levels down', body: utf8(orderWithRaw('metadata', deepObject(10_000, '{"__proto__":{"polluted":"yes"}}'))), expect: TOO_DEEP },
    { kind: 'http', name: 'unclosed arrays 500000 deep', body: utf8('['.repeat(500_000)), heavy: true, expect: TOO_DEEP },
  ];
  const DEPTH = 10_000;
  const deep: [string, string][] = [
    [`top level: arrays nested ${DEPTH} deep`, deepArray(DEPTH)],
    [`top level: objects nested ${DEPTH} deep`, deepObject(DEPTH)],
    [`top level: arrays of objects nested ${DEPTH} deep`, deepMixed(DEPTH)],
    [`metadata: objects nested ${DEPTH} deep`, orderWithRaw('metadata', deepObject(DEPTH))],
    [`metadata value: arrays nested ${DEPTH} deep`, orderWithRaw('metadata.order_id', deepArray(DEPTH))],
    [`tags: arrays nested ${DEPTH} deep`, orderWithRaw('tags', deepArray(DEPTH))],
    [`customer: objects nested ${DEPTH} deep`, orderWithRaw('customer', deepObject(DEPTH))],
    [`customer.address.line1: objects nested ${DEPTH} deep`, orderWithRaw('customer.address.line1', deepObject(DEPTH))],
    [`description: arrays of objects nested ${DEPTH} deep`, orderWithRaw('description', deepMixed(DEPTH))],
    [`unknown field: objects nested ${DEPTH} deep`, orderPlus(`"deep":${deepObject(DEPTH)}`)],
    [`null character ${DEPTH} levels down`, orderWithRaw('metadata', deepObject(DEPTH, '"\\u0000"'))],
    // where the DTO pipe (class-transformer, from ~1,500 levels) and the idempotency fingerprint (JSON.stringify, ~5,000) give out
    ['top level: arrays nested 2000 deep', deepArray(2_000)],
    ['metadata: objects nested 5000 deep', orderWithRaw('metadata', deepObject(5_000))],
    // deeper than 10,000, still under 1 MiB
    ['top level: arrays nested 100000 deep', deepArray(100_000)],
    ['metadata: arrays nested 100000 deep', orderWithRaw('metadata', deepArray(100_000))],
  ];
  for (const [name, text] of deep) cases.push({ kind: 'http', name, body: utf8(text), heavy: text.length > 100_000, expect: DEEP });
  return cases;
}

function bigCases(): HttpCase[] {
  const room = MIB - JSON.stringify(VALID_ORDER).length - 100; // stays under the limit
  const emoji = '😀'.repeat(Math.floor(room / 4));
  // class-transformer dedupes keys in O(n²): 40,000 keys cost over a second of CPU, so a few thousand here
  const manyKeys = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, 'v']));
  return [
    { kind: 'http', name: 'description of ~1 MiB', body: utf8(orderWith('description', 'x'.repeat(room))), heavy: true, expect: DTO('description') },
    { kind: 'http', name: 'description of ~1 MiB of 4-byte characters', body: utf8(orderWith('description', emoji)), heavy: true, expect: DTO('description') },
    { kind: 'http', name: 'description of ~1 MiB of \\u escapes', body: utf8(orderWithRaw('description', `"${'\\u0041'.repeat(Math.floor(room / 6))}"`)), heavy: true, expect: DTO('description') },
    { kind: 'http', name: 'unknown field named with ~1 MiB', body: utf8(orderPlus(`"${'k'.repeat(room)}":1`)), heavy: true, expect: DTO(undefined) },
    { kind: 'http', name: 'metadata key of ~1 MiB', body: utf8(orderWith('metadata', { ['k'.repeat(room)]: 'v' })), heavy: true, expect: DTO('metadata') },
    // the parser allows 1,000 keys an object (class-transformer handles unknown keys in O(n²))
    { kind: 'http', name: 'metadata with 5000 keys', body: utf8(orderWith('metadata', manyKeys)), heavy: true, expect: { status: 400, code: 'invalid_request', field: 'metadata' } },
    { kind: 'http', name: '5000 unknown fields at the top level', body: utf8(JSON.stringify({ ...VALID_ORDER, ...manyKeys })), heavy: true, expect: { status: 400, code: 'invalid_request', field: null } },
    { kind: 'http', name: 'tags with 50000 items', body: utf8(orderWithRaw('tags', `[${'"t",'.repeat(50_000)}"t"]`)), heavy: true, expect: DTO('tags') },
    { kind: 'http', name: 'metadata with 21 keys', body: utf8(orderWith('metadata', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])))), expect: DTO('metadata') },
    { kind: 'http', name: 'metadata key of 41 characters', body: utf8(orderWith('metadata', { ['k'.repeat(41)]: 'v' })), expect: DTO('metadata') },
    { kind: 'http', name: 'metadata key with a space', body: utf8(orderWith('metadata', { 'order id': 'v' })), expect: DTO('metadata') },
    { kind: 'http', name: 'metadata empty key', body: utf8(orderWith('metadata', { '': 'v' })), expect: DTO('metadata') },
    { kind: 'http', name: 'tags with 11 items', body: utf8(orderWith('tags', Array.from({ length: 11 }, () => 't'))), expect: DTO('tags') },
  ];
}

function encodingCases(): HttpCase[] {
  const [head, tail] = ['{"amount":1500,"currency":"usd","description":"', '","customer":{"name":"Ada"}}'];
  const inString: [string, number[]][] = [
    ['overlong "/" (C0 AF)', [0xc0, 0xaf]],
    ['overlong NUL (C0 80)', [0xc0, 0x80]],
    ['3-byte overlong "/" (E0 80 AF)', [0xe0, 0x80, 0xaf]],
    ['4-byte overlong (F0 80 80 AF)', [0xf0, 0x80, 0x80, 0xaf]],
    ['lone continuation byte 80', [0x80]],
    ['lone continuation byte BF', [0xbf]],
    ['byte FF', [0xff]],
    ['byte FE', [0xfe]],
    ['UTF-8 encoded surrogate D800 (ED A0 80)', [0xed, 0xa0, 0x80]],
    ['UTF-8 encoded surrogate pair (CESU-8)', [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]],
    ['code point above U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80]],
    ['5-byte sequence (F8 88 80 80 80)', [0xf8, 0x88, 0x80, 0x80, 0x80]],
    ['truncated 2-byte sequence (C3)', [0xc3]],
    ['truncated 3-byte sequence (E2 82)', [0xe2, 0x82]],
    ['truncated 4-byte sequence (F0 9F 98)', [0xf0, 0x9f, 0x98]],
    ['Latin-1 é (E9)', [0xe9]],
  ];
  const cases: HttpCase[] = inString.map(([label, seq]) => ({ kind: 'http', name: `invalid UTF-8 in a string: ${label}`, body: bytes(head, seq, tail), expect: INVALID_JSON }));
  cases.push(
    { kind: 'http', name: 'invalid UTF-8 in a key (C0 AF)', body: bytes('{"a', [0xc0, 0xaf], '":1}'), expect: INVALID_JSON },
    { kind: 'http', name: 'invalid UTF-8 between tokens (FF)', body: bytes('{"amount":1500,', [0xff], '"currency":"usd"}'), expect: INVALID_JSON },
    { kind: 'http', name: 'truncated UTF-8 at the very end (E2 82)', body: bytes(JSON.stringify(VALID_ORDER), [0xe2, 0x82]), expect: INVALID_JSON },
    { kind: 'http', name: 'body cut inside a multi-byte character', body: utf8(orderWith('description', 'café ☕')).subarray(0, utf8(orderWith('description', 'café ☕')).indexOf(utf8('☕')) + 1), expect: INVALID_JSON },
    { kind: 'http', name: 'only FF FF FF', body: Buffer.from([0xff, 0xff, 0xff]), expect: INVALID_JSON },
    { kind: 'http', name: 'BOM then an invalid body', body: bytes([0xef, 0xbb, 0xbf], '{"amount":"x"}'), expect: { any4xx: true } },
    { kind: 'http', name: 'BOM then an array', body: bytes([0xef, 0xbb, 0xbf], '[1,2]'), expect: { any4xx: true } },
    { kind: 'http', name: 'two BOMs then the valid body', body: bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], JSON.stringify(VALID_ORDER)), expect: INVALID_JSON },
    { kind: 'http', name: 'BOM after the body', body: bytes(JSON.stringify(VALID_ORDER), [0xef, 0xbb, 0xbf]), expect: INVALID_JSON },
    { kind: 'http', name: 'UTF-16LE body with BOM', body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(VALID_ORDER), 'utf16le')]), expect: INVALID_JSON },
    { kind: 'http', name: 'UTF-16LE body without BOM', body: Buffer.from(JSON.stringify(VALID_ORDER), 'utf16le'), expect: INVALID_JSON },
    { kind: 'http', name: 'UTF-16BE body with BOM', body: Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(JSON.stringify(VALID_ORDER), 'utf16le').swap16()]), expect: INVALID_JSON },
  );
  return cases;
}

function textSafetyCases(): HttpCase[] {
  const escaped: [string, string, string][] = [
    ['description', '"a\\u0000b"', 'description'],
    ['customer.name', '"\\u0000"', 'customer.name'],
    ['customer.address.line1', '"1 Main\\u0000St"', 'customer.address.line1'],
    ['metadata.order_id', '"A\\u0000"', 'metadata.order_id'],
    ['tags', '["ok","\\u0000"]', 'tags.1'],
  ];
  const cases: HttpCase[] = escaped.map(([path, raw, field]) => ({ kind: 'http', name: `escaped null character in ${path}`, body: utf8(orderWithRaw(path, raw)), expect: INVALID_REQUEST(field) }));
  cases.push(
    { kind: 'http', name: 'escaped null character in a key', body: utf8(orderPlus('"a\\u0000b":"x"')), expect: INVALID_REQUEST() },
    { kind: 'http', name: 'escaped null character in a metadata key', body: utf8(orderWithRaw('metadata', '{"k\\u0000":"v"}')), expect: INVALID_REQUEST() },
    { kind: 'http', name: 'escaped null character as the whole body', body: utf8('"\\u0000"'), expect: INVALID_REQUEST() },
    { kind: 'http', name: 'raw NUL byte inside a string', body: bytes('{"description":"a', [0x00], 'b"}'), expect: INVALID_JSON },
    { kind: 'http', name: 'raw NUL byte between tokens', body: bytes('{"amount":1500,', [0x00], '"currency":"usd"}'), expect: INVALID_JSON },
    { kind: 'http', name: 'raw NUL byte after the body', body: bytes(JSON.stringify(VALID_ORDER), [0x00]), expect: INVALID_JSON },
    { kind: 'http', name: 'raw NUL byte as the whole body', body: Buffer.from([0x00]), expect: INVALID_JSON },
    { kind: 'http', name: 'raw control character (0x01) inside a string', body: bytes('{"description":"a', [0x01], 'b"}'), expect: INVALID_JSON },
  );
  const surrogates: [string, string][] = [
    ['\\ud800', 'lone high surrogate'],
    ['\\udfff', 'lone low surrogate'],
    ['\\udbff\\u0041', 'high surrogate then a letter'],
    ['\\ude00\\ud83d', 'pair in the wrong order'],
    ['\\ud800\\ud800', 'two high surrogates'],
    ['abc\\udc00', 'low surrogate at the end'],
  ];
  for (const [raw, label] of surrogates) {
    cases.push({ kind: 'http', name: `unpaired surrogate in description: ${label}`, body: utf8(orderWithRaw('description', `"${raw}"`)), expect: INVALID_REQUEST('description') });
  }
  cases.push(
    { kind: 'http', name: 'unpaired surrogate in customer.name', body: utf8(orderWithRaw('customer.name', '"\\ud800"')), expect: INVALID_REQUEST('customer.name') },
    { kind: 'http', name: 'unpaired surrogate in a metadata value', body: utf8(orderWithRaw('metadata.order_id', '"\\udfff"')), expect: INVALID_REQUEST('metadata.order_id') },
    { kind: 'http', name: 'unpaired surrogate in a tag', body: utf8(orderWithRaw('tags', '["\\ud800"]')), expect: INVALID_REQUEST('tags.0') },
    { kind: 'http', name: 'unpaired surrogate in a key', body: utf8(orderPlus('"\\ud800":"x"')), expect: INVALID_REQUEST() },
    { kind: 'http', name: 'unpaired surrogate in a metadata key', body: utf8(orderWithRaw('metadata', '{"\\udfff":"v"}')), expect: INVALID_REQUEST() },
  );
  return cases;
}

function prototypeCases(): HttpCase[] {
  const evil = '{"polluted":"yes","isAdmin":true}';
  const cases: [string, string][] = [
    ['__proto__ at the top level', orderPlus(`"__proto__":${evil}`)],
    ['only __proto__', `{"__proto__":${evil}}`],
    ['__proto__ = null', orderPlus('"__proto__":null')],
    ['__proto__ = []', orderPlus('"__proto__":[]')],
    ['__proto__ in customer', orderWithRaw('customer', `{"name":"Ada","__proto__":${evil}}`)],
    ['__proto__ in customer.address', orderWithRaw('customer.address', `{"line1":"x","country":"US","__proto__":${evil}}`)],
    ['__proto__ in metadata', orderWithRaw('metadata', `{"__proto__":${evil}}`)],
    ['__proto__ as a string metadata value', orderWithRaw('metadata', '{"__proto__":"yes"}')],
    ['__proto__ inside an array item', orderWithRaw('tags', `[{"__proto__":${evil}}]`)],
    ['escaped __proto__ key (\\u005f_proto__)', orderPlus(`"\\u005f_proto__":${evil}`)],
    ['escaped __proto__ key (__pro\\u0074o__)', orderWithRaw('metadata', `{"__pro\\u0074o__":${evil}}`)],
    ['duplicate __proto__ keys', `{"__proto__":{},"__proto__":${evil}}`],
    ['constructor.prototype at the top level', orderPlus(`"constructor":{"prototype":${evil}}`)],
    ['constructor.prototype in customer', orderWithRaw('customer', `{"name":"Ada","constructor":{"prototype":${evil}}}`)],
    ['constructor.prototype in metadata', orderWithRaw('metadata', `{"constructor":{"prototype":${evil}}}`)],
    ['constructor.prototype in an array item', orderWithRaw('tags', `[{"constructor":{"prototype":${evil}}}]`)],
  ];
  return cases.map(([name, text]) => ({ kind: 'http', name, body: utf8(text), expect: PROTO }));
}

function syntaxCases(): HttpCase[] {
  const valid = JSON.stringify(VALID_ORDER);
  const cases: [string, string | Buffer, Expectation?][] = [
    // duplicate keys: the last one wins, and it is wrong
    ['duplicate key: amount then "1500"', orderPlus('"amount":"1500"'), DTO('amount')],
    ['duplicate key: customer then 5', orderPlus('"customer":5'), DTO('customer')],
    ['duplicate key: capture then "yes"', orderPlus('"capture":"yes"'), DTO('capture')],
    ['duplicate key in customer: name then null', orderWithRaw('customer', '{"name":"Ada","name":null}'), DTO('customer.name')],
    // trailing garbage
    ['trailing garbage: x', `${valid}x`],
    ['trailing garbage: a second object', `${valid}${valid}`],
    ['trailing garbage: a second object after a newline (NDJSON)', `${valid}\n${valid}`],
    ['trailing garbage: ]', `${valid}]`],
    ['trailing garbage: ,', `${valid},`],
    ['trailing garbage: }', `${valid}}`],
    ['trailing garbage: null', `${valid} null`],
    // comments and other JSON5-isms
    ['line comment before the body', `// order\n${valid}`],
    ['line comment after the body', `${valid} // order`],
    ['block comment inside', `{/* amount */"amount":1500}`],
    ['hash comment', `${valid} # order`],
    ['trailing comma in an object', `{"amount":1500,"currency":"usd",}`],
    ['trailing comma in an array', orderWithRaw('tags', '["a",]')],
    ['single-quoted strings', `{'amount':1500}`],
    ['unquoted keys', `{amount:1500}`],
    ['hex number', `{"amount":0x5DC}`],
    ['undefined', `{"amount":undefined}`],
    ['unterminated string', `{"description":"abc`],
    ['unterminated object', valid.slice(0, -1)],
    ['half a body', valid.slice(0, Math.floor(valid.length / 2))],
    ['only {', '{'],
    ['only }', '}'],
    ['only a comma', ','],
    ['bare word', 'hello'],
    ['form-encoded text with a JSON content type', 'amount=1500&currency=usd'],
    ['XML with a JSON content type', '<order><amount>1500</amount></order>'],
    ['invalid escape \\x41', orderWithRaw('description', '"\\x41"')],
    ['invalid escape \\u12', orderWithRaw('description', '"\\u12"')],
    ['raw newline inside a string', orderWithRaw('description', '"a\nb"')],
    ['raw tab inside a string', orderWithRaw('description', '"a\tb"')],
    ['non-breaking space as whitespace', `{\u00a0"amount":1500}`],
    ['vertical tab as whitespace', `{\u000b"amount":1500}`],
  ];
  return cases.map(([name, body, expect]) => ({ kind: 'http', name, body: typeof body === 'string' ? utf8(body) : body, expect: expect ?? INVALID_JSON }));
}

function emptyAndMediaTypeCases(): HttpCase[] {
  const valid = utf8(JSON.stringify(VALID_ORDER));
  const cases: HttpCase[] = [
    { kind: 'http', name: 'empty body with application/json', body: Buffer.alloc(0), expect: DTO() },
    { kind: 'http', name: 'empty body without Content-Type', contentType: null, body: Buffer.alloc(0), expect: DTO() },
    { kind: 'http', name: 'whitespace-only body', body: utf8(' \n\t\r '), expect: DTO() },
    { kind: 'http', name: 'empty chunked body', body: Buffer.alloc(0), chunked: true, expect: DTO() },
    // the valid body under another media type: refused as not JSON
    { kind: 'http', name: 'valid JSON without Content-Type', contentType: null, body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON as text/plain', contentType: 'text/plain', body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON as text/plain; charset=utf-8', contentType: 'text/plain; charset=utf-8', body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'form body as application/x-www-form-urlencoded', contentType: 'application/x-www-form-urlencoded', body: utf8('amount=1500&currency=usd&description=x&customer[name]=Ada'), expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON as application/x-www-form-urlencoded', contentType: 'application/x-www-form-urlencoded', body: valid, expect: NOT_JSON },
    {
      kind: 'http',
      name: 'multipart/form-data',
      contentType: 'multipart/form-data; boundary=----fuzz',
      body: utf8(`------fuzz\r\nContent-Disposition: form-data; name="body"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(VALID_ORDER)}\r\n------fuzz--\r\n`),
      expect: NOT_JSON,
    },
    { kind: 'http', name: 'valid JSON as application/xml', contentType: 'application/xml', body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON as text/json', contentType: 'text/json', body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON as application/jsonx', contentType: 'application/jsonx', body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON as application/json-patch+json', contentType: 'application/json-patch+json', body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON as application/vnd.api+json', contentType: 'application/vnd.api+json', body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON as application/octet-stream', contentType: 'application/octet-stream', body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON as */*', contentType: '*/*', body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON as application/*', contentType: 'application/*', body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON as "json"', contentType: 'json', body: valid, expect: NOT_JSON },
    { kind: 'http', name: 'valid JSON with an empty Content-Type', contentType: '', body: valid, expect: { any4xx: true } },
    { kind: 'http', name: 'valid JSON with Content-Type ";"', contentType: ';', body: valid, expect: { any4xx: true } },
    { kind: 'http', name: 'valid JSON as "text/plain, application/json"', contentType: 'text/plain, application/json', body: valid, expect: { any4xx: true } },
    { kind: 'http', name: 'valid JSON with an 8 KiB Content-Type', contentType: `application/${'x'.repeat(8192)}`, body: valid, expect: { any4xx: true } },
    { kind: 'http', name: 'gzip-compressed bytes as JSON (Content-Encoding: gzip)', headers: { 'content-encoding': 'gzip' }, body: Buffer.from('1f8b0800000000000003ab56ca4dcc4c51b2523254aa0500f5a4c2b20f000000', 'hex'), expect: { any4xx: true } },
    { kind: 'http', name: 'multipart with a JSON part as the body but no boundary', contentType: 'multipart/form-data', body: valid, expect: NOT_JSON },
  ];
  // charset and spelling variants of application/json, with a body the DTO refuses (either 400 or 415 is right)
  const invalidShape = utf8('{"amount":"1500"}');
  for (const type of [
    'application/json; charset=utf-8',
    'application/json; charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json;charset=utf8',
    'application/json; charset=iso-8859-1',
    'application/json; charset=utf-16',
    'application/json; charset=binary',
    'application/json; charset=',
    'APPLICATION/JSON',
    'Application/Json; Charset=UTF-8',
    'application/json;',
    'application/json ; charset=utf-8',
    'application/json; foo=bar',
    ' application/json',
  ]) {
    cases.push({ kind: 'http', name: `Content-Type ${JSON.stringify(type)} with an invalid body`, contentType: type, body: invalidShape, expect: { any4xx: true } });
  }
  cases.push({
    kind: 'http',
    name: 'UTF-16LE body declared as charset=utf-16le',
    contentType: 'application/json; charset=utf-16le',
    body: Buffer.from(JSON.stringify(VALID_ORDER), 'utf16le'),
    expect: { any4xx: true },
  });
  return cases;
}

function sizeCases(): HttpCase[] {
  const over = (size: number) => utf8(orderWith('description', 'x'.repeat(size - JSON.stringify(VALID_ORDER).length + 'Two coffees'.length)));
  const exactly = over(MIB);
  const justOver = over(MIB + 1);
  if (exactly.length !== MIB || justOver.length !== MIB + 1) throw new Error('size cases miscomputed');
  return [
    { kind: 'http', name: 'exactly 1 MiB (description too long)', body: exactly, heavy: true, expect: DTO('description') },
    { kind: 'http', name: '1 MiB + 1 byte', body: justOver, heavy: true, expect: TOO_LARGE },
    { kind: 'http', name: '1 MiB + 1 byte, chunked (no Content-Length)', body: justOver, chunked: true, heavy: true, expect: TOO_LARGE },
    { kind: 'http', name: '1 MiB + 1 byte without Content-Type', contentType: null, body: justOver, heavy: true, expect: { any4xx: true } },
    { kind: 'http', name: '1 MiB + 1 byte as text/plain', contentType: 'text/plain', body: justOver, heavy: true, expect: { any4xx: true } },
    { kind: 'http', name: '1 MiB + 1 byte of invalid UTF-8', body: Buffer.alloc(MIB + 1, 0xff), heavy: true, expect: TOO_LARGE },
    { kind: 'http', name: '4 MiB', body: over(4 * MIB), heavy: true, expect: TOO_LARGE },
  ];
}

// ---------------------------------------------------------------------------------------------
// raw socket cases: Content-Length lies and broken framing

function socketCases(): SocketCase[] {
  const valid = JSON.stringify(VALID_ORDER);
  const request = (path: string, headerLines: string[], extra: string[], body: Buffer | string) =>
    Buffer.concat([utf8([`POST ${path} HTTP/1.1`, ...headerLines, ...extra, '', ''].join('\r\n')), typeof body === 'string' ? utf8(body) : body]);
  const json = 'Content-Type: application/json';
  return [
    { kind: 'socket', name: 'no Content-Length and no Transfer-Encoding (no body)', timeoutMs: 1500, build: (p, h) => request(p, h, [json], '') },
    { kind: 'socket', name: 'no Content-Type, no Content-Length, no Transfer-Encoding', timeoutMs: 1500, build: (p, h) => request(p, h, [], '') },
    { kind: 'socket', name: 'body without Content-Length or Transfer-Encoding', timeoutMs: 1500, build: (p, h) => request(p, h, [json], valid) },
    { kind: 'socket', name: 'Content-Length larger than the body (connection left open)', timeoutMs: 1500, build: (p, h) => request(p, h, [json, `Content-Length: ${valid.length + 100}`], valid) },
    { kind: 'socket', name: 'Content-Length larger than the body, then EOF', halfClose: true, timeoutMs: 1500, build: (p, h) => request(p, h, [json, `Content-Length: ${valid.length + 100}`], valid) },
    { kind: 'socket', name: 'Content-Length smaller than the body (JSON cut short)', status: 400, timeoutMs: 1500, build: (p, h) => request(p, h, [json, `Content-Length: ${valid.length - 10}`], valid) },
    { kind: 'socket', name: 'Content-Length 1 with a whole body', status: 400, timeoutMs: 1500, build: (p, h) => request(p, h, [json, 'Content-Length: 1'], valid) },
    { kind: 'socket', name: 'Content-Length 0 with a whole body', timeoutMs: 1500, build: (p, h) => request(p, h, [json, 'Content-Length: 0'], valid) },
    { kind: 'socket', name: 'Content-Length over 1 MiB with a small body', status: 413, timeoutMs: 1500, build: (p, h) => request(p, h, [json, `Content-Length: ${MIB + 1}`], valid) },
    { kind: 'socket', name: 'Content-Length 99999999999999999999', timeoutMs: 1500, build: (p, h) => request(p, h, [json, 'Content-Length: 99999999999999999999'], valid) },
    { kind: 'socket', name: 'Content-Length -1', timeoutMs: 1500, build: (p, h) => request(p, h, [json, 'Content-Length: -1'], valid) },
    { kind: 'socket', name: 'Content-Length abc', timeoutMs: 1500, build: (p, h) => request(p, h, [json, 'Content-Length: abc'], valid) },
    { kind: 'socket', name: 'Content-Length "10, 20"', timeoutMs: 1500, build: (p, h) => request(p, h, [json, 'Content-Length: 10, 20'], valid) },
    { kind: 'socket', name: 'two different Content-Length headers', timeoutMs: 1500, build: (p, h) => request(p, h, [json, `Content-Length: ${valid.length}`, 'Content-Length: 5'], valid) },
    {
      kind: 'socket',
      name: 'Content-Length and Transfer-Encoding: chunked together',
      timeoutMs: 1500,
      build: (p, h) => request(p, h, [json, 'Content-Length: 5', 'Transfer-Encoding: chunked'], `${valid.length.toString(16)}\r\n${valid}\r\n0\r\n\r\n`),
    },
    { kind: 'socket', name: 'chunked with a bad chunk size', timeoutMs: 1500, build: (p, h) => request(p, h, [json, 'Transfer-Encoding: chunked'], `zz\r\n${valid}\r\n0\r\n\r\n`) },
    { kind: 'socket', name: 'chunked, chunk larger than declared', timeoutMs: 1500, build: (p, h) => request(p, h, [json, 'Transfer-Encoding: chunked'], `5\r\n${valid}\r\n0\r\n\r\n`) },
    { kind: 'socket', name: 'chunked, stream ends without the last chunk', halfClose: true, timeoutMs: 1500, build: (p, h) => request(p, h, [json, 'Transfer-Encoding: chunked'], `${valid.length.toString(16)}\r\n${valid}\r\n`) },
    {
      kind: 'socket',
      name: 'chunked, over 1 MiB in total',
      status: 413,
      timeoutMs: 3000,
      build: (p, h) => {
        const chunk = 'x'.repeat(64 * 1024);
        const chunks = Array.from({ length: 17 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
        return request(p, h, [json, 'Transfer-Encoding: chunked'], `${chunks}0\r\n\r\n`);
      },
    },
    { kind: 'socket', name: 'Transfer-Encoding: gzip (unsupported)', timeoutMs: 1500, build: (p, h) => request(p, h, [json, 'Transfer-Encoding: gzip'], valid) },
    { kind: 'socket', name: 'Content-Length smaller, cut inside a UTF-8 character', status: 400, timeoutMs: 1500, build: (p, h) => request(p, h, [json, `Content-Length: ${'{"description":"'.length + 1}`], '{"description":"☕"}') },
    { kind: 'socket', name: 'Content-Length larger than a body holding invalid UTF-8, then EOF', halfClose: true, timeoutMs: 1500, build: (p, h) => request(p, h, [json, 'Content-Length: 50'], bytes('{"a":"', [0xff, 0xfe], '"}')) },
  ];
}

/** The whole corpus: ~460 cases, generated. */
export function buildCorpus(): FuzzCase[] {
  const http: HttpCase[] = [
    ...topLevelCases(),
    ...wrongTypeCases(),
    ...unknownFieldCases(),
    ...numberCases(),
    ...deepCases(),
    ...bigCases(),
    ...encodingCases(),
    ...textSafetyCases(),
    ...prototypeCases(),
    ...syntaxCases(),
    ...emptyAndMediaTypeCases(),
    ...sizeCases(),
  ];
  const names = new Set<string>();
  for (const c of http) {
    if (names.has(c.name)) throw new Error(`duplicate fuzz case name: ${c.name}`);
    names.add(c.name);
  }
  return [...http, ...socketCases()];
}
