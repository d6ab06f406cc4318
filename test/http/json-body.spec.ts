import { MAX_DEPTH, MAX_KEYS_PER_OBJECT, parseJsonBody } from '@lib/http';

const parse = (text: string) => parseJsonBody(Buffer.from(text, 'utf8'));
const refusal = (text: string) => {
  try {
    parse(text);
  } catch (error) {
    return error as { code: string; field: string | null };
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
};

describe('the JSON body parser', () => {
  it('bounds nesting at MAX_DEPTH levels, counting only brackets outside strings', () => {
    expect(MAX_DEPTH).toBe(32);
    expect(parse('{"a":'.repeat(31) + '[]' + '}'.repeat(31))).toBeDefined();
    expect(refusal('['.repeat(33) + ']'.repeat(33))).toMatchObject({ code: 'invalid_request', field: null });
    expect(parse(JSON.stringify({ note: '[[[[{{{{'.repeat(20) + '\\"[[[' }))).toEqual({ note: '[[[[{{{{'.repeat(20) + '\\"[[[' });
    expect(refusal('['.repeat(500_000))).toMatchObject({ code: 'invalid_request' }); // refused before JSON.parse sees it
  });

  it('refuses reserved key names anywhere, naming the field', () => {
    for (const key of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      expect(refusal(`{"a":{"b":[{"${key}":1}]}}`)).toMatchObject({ code: 'invalid_request', field: `a.b.0.${key}` });
    }
    expect(parse('{"constructor_id":"x","proto":"y","__proto":"z"}')).toEqual({ constructor_id: 'x', proto: 'y', __proto: 'z' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('bounds the keys of one object', () => {
    const keys = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));
    expect(Object.keys(parse(keys(MAX_KEYS_PER_OBJECT)) as object)).toHaveLength(MAX_KEYS_PER_OBJECT);
    expect(refusal(`{"metadata":${keys(MAX_KEYS_PER_OBJECT + 1)}}`)).toMatchObject({ code: 'invalid_request', field: 'metadata' });
  });

  it('takes only a JSON object as the body: null, an array, a string, a number or a boolean is invalid_request with no field', () => {
    for (const text of ['null', ' null\n', '[]', '[{}]', '"x"', '""', '"{}"', '1500', '0', '-1.5', 'true', 'false']) {
      expect({ text, error: refusal(text) }).toMatchObject({ text, error: { code: 'invalid_request', field: null } });
    }
    expect(parse('{}')).toEqual({});
  });

  it('tells invalid UTF-8 and invalid JSON apart, and treats an empty body as none', () => {
    expect(() => parseJsonBody(Buffer.from([0x7b, 0xff, 0x7d]))).toThrow(expect.objectContaining({ code: 'invalid_json' }));
    expect(refusal('{"a":1,}')).toMatchObject({ code: 'invalid_json' });
    expect(parse('')).toBeUndefined();
    expect(parse('  \n')).toBeUndefined();
  });
});
