import { Body, Controller, Get, HttpCode, Module, Param, Post, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { request as httpRequest } from 'node:http';
import { DomainRefusal } from '@lib/domain';
import { Public } from '../../apps/api/src/auth/auth.decorators';
import { TestApi, appPerSuite, startTestApi } from '../support/fixtures';

class Label {
  @IsString() @MaxLength(20) label!: string;
}
class CreateItem {
  @IsString() @MaxLength(50) name!: string;
  @IsInt() @Min(1) @Max(1_000_000) amount!: number;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => Label) nested?: Label;
}

const acted: string[] = [];

/** Probe routes that exercise the platform the way real routes will (public: no key needed). */
@Public()
@Controller('probe')
class ProbeController {
  @Post('items')
  create(@Body() body: CreateItem) {
    return { data: { kind: 'item', name: body.name, amount: body.amount } };
  }

  @Get('items/:id')
  item(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return { data: { kind: 'item', id, query } };
  }

  @HttpCode(200)
  @Post('items/:id/act')
  act(@Param('id') id: string) {
    acted.push(id);
    return { data: { kind: 'item', id } };
  }

  @Get('refused')
  refused(): never {
    // a decider's refusal, thrown as is: the filter renders it without a per-library mapping
    throw new DomainRefusal('remainder_unavailable', 'The quote is still live.', null, { quote_ends_at: '2026-11-22T00:15:00.000Z' });
  }

  @Get('boom')
  boom(): never {
    throw new Error('connection to 10.0.0.7 refused; secret=hunter2; at /srv/app/secret.ts:12');
  }
}
@Module({ controllers: [ProbeController] })
class ProbeModule {}

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request: exact bytes and headers, nothing added by a client library. */
function raw(api: TestApi, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<Raw> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const allHeaders = bytes !== undefined ? { 'content-length': String(bytes.length), ...headers } : headers;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: api.port, method, path: `/api/v1${path}`, headers: allHeaders }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (bytes !== undefined) req.end(bytes);
    else req.end();
  });
}

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

function expectError(response: Raw, status: number, code: string, field: string | null = null) {
  expect(response.status).toBe(status);
  const body = JSON.parse(response.body);
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toEqual({ code, message: expect.any(String), field, request_id: expect.stringMatching(/^req_/) });
  expect(response.headers['service-request-id']).toBe(body.error.request_id);
  return body.error as { code: string; message: string; field: string | null; request_id: string };
}

describe('API platform: errors, bodies and the edge (spec §7, §5.8)', () => {
  const suite = appPerSuite(() => startTestApi({}, [ProbeModule]));

  const post = (path: string, body: unknown, extra: Record<string, string> = {}) => {
    const { headers, body: text } = json(body);
    return raw(suite.api, 'POST', path, { ...headers, ...extra }, text);
  };

  it('gives every response a Service-Request-Id; a good body passes', async () => {
    const ok = await post('/probe/items', { name: 'Café ☕', amount: 100, nested: { label: 'x' } });
    expect(ok.status).toBe(201);
    expect(JSON.parse(ok.body)).toEqual({ data: { kind: 'item', name: 'Café ☕', amount: 100 } });
    expect(ok.headers['service-request-id']).toMatch(/^req_[0-9A-Za-z]{24}$/);
    const other = await post('/probe/items', { name: 'b', amount: 1 });
    expect(other.headers['service-request-id']).not.toBe(ok.headers['service-request-id']);
    // a client cannot choose its request id
    const spoof = await raw(suite.api, 'GET', '/health', { 'request-id': 'req_mine', 'service-request-id': 'req_mine' });
    expect(spoof.headers['service-request-id']).not.toBe('req_mine');
  });

  it('answers an unknown path with 404 not_found', async () => {
    const error = expectError(await raw(suite.api, 'GET', '/nope'), 404, 'not_found');
    expect(error.message).toContain('/api/v1/nope');
    expectError(await raw(suite.api, 'GET', '/'), 404, 'not_found');
    expect((await raw(suite.api, 'GET', '/../health')).status).not.toBe(500);
  });

  it('names the prefix when a route of the API is sent without it (a new-user audit, 2026-11-29)', async () => {
    const messageOf = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${suite.api.port}${path}`);
      const body = (await response.json()) as { error: { code: string; message: string } };
      return { status: response.status, code: body.error.code, message: body.error.message };
    };
    expect(await messageOf('/payments')).toEqual({ status: 404, code: 'not_found', message: "No such path: GET /payments. Did you mean /api/v1/payments? The API's routes start with /api/v1." });
    expect((await messageOf('/payments/pmt_123?limit=1')).message).toBe("No such path: GET /payments/pmt_123. Did you mean /api/v1/payments/pmt_123? The API's routes start with /api/v1.");
    expect((await messageOf('/nope')).message).toBe('No such path: GET /nope.'); // no route there under the prefix either
  });

  it('answers a known path with a wrong method with an empty 405 and no request id', async () => {
    for (const [method, path] of [
      ['DELETE', '/health'],
      ['POST', '/health'],
      ['GET', '/probe/items'],
      ['PUT', '/probe/items'],
    ]) {
      const response = await raw(suite.api, method, path, { 'content-type': 'application/json' }, method === 'GET' ? undefined : '{}');
      expect(response.status).toBe(405);
      expect(response.body).toBe('');
      expect(response.headers['service-request-id']).toBeUndefined();
      expect(response.headers.allow).toBeDefined();
    }
  });

  it('answers a trailing slash (an empty last segment) with 404, never a 405 that allows the method it refused', async () => {
    for (const method of ['GET', 'POST']) {
      const response = await raw(suite.api, method, '/probe/items/', { 'content-type': 'application/json' }, method === 'GET' ? undefined : '{}');
      expectError(response, 404, 'not_found');
    }
    expectError(await raw(suite.api, 'GET', '/health/'), 404, 'not_found');
  });

  it('refuses a body that is not JSON with 415 unsupported_media_type', async () => {
    expectError(await raw(suite.api, 'POST', '/probe/items', { 'content-type': 'text/plain' }, '{"name":"a","amount":1}'), 415, 'unsupported_media_type');
    expectError(await raw(suite.api, 'POST', '/probe/items', { 'content-type': 'application/x-www-form-urlencoded' }, 'name=a&amount=1'), 415, 'unsupported_media_type');
    expectError(await raw(suite.api, 'POST', '/probe/items', {}, '{"name":"a","amount":1}'), 415, 'unsupported_media_type');
    expectError(await raw(suite.api, 'POST', '/probe/items', { 'content-type': 'application/json; charset=iso-8859-1' }, '{"name":"a","amount":1}'), 415, 'unsupported_media_type');
    expect((await raw(suite.api, 'POST', '/probe/items', { 'content-type': 'application/json; charset=UTF-8' }, '{"name":"a","amount":1}')).status).toBe(201);
  });

  it('reads a POST with no body as no body whatever Content-Type it names (no 415: no body was sent)', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream']) {
      expectError(await raw(suite.api, 'POST', '/probe/items', { 'content-type': type }, ''), 400, 'invalid_request', 'name'); // past the parser: the body's checks ran
    }
  });

  it('refuses invalid JSON and invalid UTF-8 with 400 invalid_json', async () => {
    expectError(await raw(suite.api, 'POST', '/probe/items', { 'content-type': 'application/json' }, '{"name": "a",'), 400, 'invalid_json');
    expectError(await raw(suite.api, 'POST', '/probe/items', { 'content-type': 'application/json' }, "{'name': 'a'}"), 400, 'invalid_json');
    const badUtf8 = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('","amount":1}')]);
    expectError(await raw(suite.api, 'POST', '/probe/items', { 'content-type': 'application/json; charset=utf-8' }, badUtf8), 400, 'invalid_json');
  });

  it('refuses a body over 1 MiB with 413 payload_too_large', async () => {
    const big = JSON.stringify({ name: 'a', amount: 1, pad: 'x'.repeat(1024 * 1024) });
    expectError(await raw(suite.api, 'POST', '/probe/items', { 'content-type': 'application/json' }, big), 413, 'payload_too_large');
  });

  it('names the field at fault: missing, unknown, wrong type, nested (dotted path)', async () => {
    expectError(await post('/probe/items', { amount: 1 }), 400, 'invalid_request', 'name');
    const missing = expectError(await post('/probe/items', { amount: 1 }), 400, 'invalid_request', 'name');
    expect(missing.message).toBe('name is required.');
    expectError(await post('/probe/items', { name: 'a', amount: 1, color: 'red' }), 400, 'invalid_request', 'color');
    expectError(await raw(suite.api, 'POST', '/probe/items/%FF', { 'content-type': 'application/json' }, '{}'), 400, 'invalid_request', 'path');
    expectError(await post('/probe/items', { name: 'a', amount: '1' }), 400, 'invalid_request', 'amount');
    // a value of the wrong type is told its type, not a rule of the right type (length, range)
    expect(expectError(await post('/probe/items', { name: 5, amount: 1 }), 400, 'invalid_request', 'name').message).toBe('name must be a string.');
    expect(expectError(await post('/probe/items', { name: 'a', amount: 'x'.repeat(5) }), 400, 'invalid_request', 'amount').message).toMatch(/integer/);
    expectError(await post('/probe/items', { name: 'a', amount: 1.5 }), 400, 'invalid_request', 'amount');
    expectError(await post('/probe/items', { name: 'a', amount: 1e300 }), 400, 'invalid_request', 'amount');
    expectError(await post('/probe/items', { name: 'a', amount: 1, nested: { label: 5 } }), 400, 'invalid_request', 'nested.label');
    expectError(await post('/probe/items', { name: 'a', amount: 1, nested: { label: 'ok', extra: 1 } }), 400, 'invalid_request', 'nested.extra');
    expectError(await post('/probe/items', [1, 2]), 400, 'invalid_request', null); // not an object: the whole body is at fault, no field
  });

  it('refuses null characters and unpaired escaped surrogates in text, and __proto__ keys', async () => {
    expectError(await post('/probe/items', '{"name":"a\\u0000b","amount":1}'), 400, 'invalid_request', 'name');
    expectError(await post('/probe/items', '{"name":"a\\ud800b","amount":1}'), 400, 'invalid_request', 'name');
    expectError(await post('/probe/items', '{"name":"a\\udc00","amount":1}'), 400, 'invalid_request', 'name');
    expectError(await post('/probe/items', '{"name":"a","amount":1,"nested":{"label":"\\u0000"}}'), 400, 'invalid_request', 'nested.label');
    const pair = await post('/probe/items', '{"name":"\\ud83d\\ude00","amount":1}'); // a proper pair is an emoji
    expect(pair.status).toBe(201);
    expect(JSON.parse(pair.body).data.name).toBe('😀');
    expectError(await post('/probe/items', '{"name":"a","amount":1,"__proto__":{"admin":true}}'), 400, 'invalid_request', '__proto__');
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('refuses a body with members on a route that takes none, naming the first; no body and {} pass', async () => {
    expectError(await post('/probe/items/a1/act', { bogus_field: 1 }), 400, 'invalid_request', 'bogus_field');
    expectError(await post('/probe/items/a2/act', [1]), 400, 'invalid_request');
    expectError(await post('/probe/items/a3/act', '"text"'), 400, 'invalid_request');
    expect(acted).toEqual([]); // refused before the handler
    expect((await raw(suite.api, 'POST', '/probe/items/b1/act')).status).toBe(200);
    expect((await post('/probe/items/b2/act', {})).status).toBe(200);
    expect(acted).toEqual(['b1', 'b2']);
  });

  it('refuses null characters in the URL before a route reads them: 404 in a path parameter, 400 naming a query parameter', async () => {
    expect(JSON.parse((await raw(suite.api, 'GET', '/probe/items/pmt_1?tag=a&metadata[k]=v')).body).data).toEqual({ kind: 'item', id: 'pmt_1', query: { tag: 'a', 'metadata[k]': 'v' } });
    expectError(await raw(suite.api, 'GET', '/probe/items/pmt_%00'), 404, 'not_found');
    expectError(await raw(suite.api, 'GET', '/probe/items/a%00b'), 404, 'not_found');
    expectError(await raw(suite.api, 'GET', '/probe/items/pmt_1?tag=a%00'), 400, 'invalid_request', 'tag');
    expectError(await raw(suite.api, 'GET', '/probe/items/pmt_1?metadata%5Bk%5D=x%00'), 400, 'invalid_request', 'metadata[k]');
    expectError(await raw(suite.api, 'GET', '/probe/items/pmt_1?tag=a&tag=%00'), 400, 'invalid_request', 'tag[1]');
    // a query that is not UTF-8 once percent-decoded, by the same hook, named the same way (audit 2026-11-30 F2, decision 0006 addendum)
    expectError(await raw(suite.api, 'GET', '/probe/items/pmt_1?tag=%FF'), 400, 'invalid_request', 'tag');
    expectError(await raw(suite.api, 'GET', '/probe/items/pmt_1?tag=a&tag=%ED%A0%80'), 400, 'invalid_request', 'tag[1]');
    expectError(await raw(suite.api, 'GET', '/probe/items/pmt_1?metadata%5Bk%5D=%E2%82'), 400, 'invalid_request', 'metadata[k]');
    expectError(await raw(suite.api, 'GET', '/probe/items/pmt_1?%FF=x'), 400, 'invalid_request', 'query');
    expect(JSON.parse((await raw(suite.api, 'GET', '/probe/items/pmt_1?tag=%F0%9F%98%80+%25')).body).data.query).toEqual({ tag: '😀 %' });
  });

  it('answers a request whose headers or URL exceed 16 KiB with the §7 envelope (400 invalid_request)', async () => {
    const error = expectError(await raw(suite.api, 'GET', `/probe/items/pmt_1?cursor=${'A'.repeat(20_000)}`), 400, 'invalid_request');
    expect(error.message).toContain('16 KiB');
    expectError(await raw(suite.api, 'GET', '/health', { 'x-padding': 'p'.repeat(20_000) }), 400, 'invalid_request');
    expect((await raw(suite.api, 'GET', '/health')).status).toBe(200); // the server goes on serving
  });

  it('renders a domain refusal with its own code, status and details', async () => {
    const response = await raw(suite.api, 'GET', '/probe/refused');
    expect(response.status).toBe(409);
    const body = JSON.parse(response.body);
    expect(body.error).toEqual({ quote_ends_at: '2026-11-22T00:15:00.000Z', code: 'remainder_unavailable', message: 'The quote is still live.', field: null, request_id: response.headers['service-request-id'] });
  });

  it('turns an unexpected exception into 500 internal_error with nothing internal in the body', async () => {
    const response = await raw(suite.api, 'GET', '/probe/boom');
    const error = expectError(response, 500, 'internal_error');
    for (const secret of ['10.0.0.7', 'hunter2', 'secret.ts', 'connection']) expect(response.body).not.toContain(secret);
    expect(error.message).toMatch(/retry/i);
  });

  it('refuses requests that do not come through the API’s own address with 403 edge_forbidden', async () => {
    expectError(await raw(suite.api, 'GET', '/health', { host: 'evil.example' }), 403, 'edge_forbidden');
    expectError(await raw(suite.api, 'GET', '/health', { host: `127.0.0.1:${suite.api.port + 1}` }), 403, 'edge_forbidden');
    expect((await raw(suite.api, 'GET', '/health', { host: `localhost:${suite.api.port}` })).status).toBe(200);
    // forwarded hosts count only from trusted proxies (none configured here)
    expectError(await raw(suite.api, 'GET', '/health', { host: 'evil.example', 'x-forwarded-host': `127.0.0.1:${suite.api.port}` }), 403, 'edge_forbidden');
  });
});

describe('API platform behind a configured public address', () => {
  const suite = appPerSuite(() => startTestApi({ API_BASE_URL: 'https://api.payments.example', TRUSTED_PROXIES: '127.0.0.1' }));

  it('accepts the public host (directly or forwarded by a trusted proxy) and still its own loopback', async () => {
    expect((await raw(suite.api, 'GET', '/health', { host: 'api.payments.example' })).status).toBe(200);
    expect((await raw(suite.api, 'GET', '/health', { host: 'internal:9', 'x-forwarded-host': 'api.payments.example' })).status).toBe(200);
    expect((await raw(suite.api, 'GET', '/health', { host: 'api.payments.example:443' })).status).toBe(200);
    expectError(await raw(suite.api, 'GET', '/health', { host: 'api.payments.example:8443' }), 403, 'edge_forbidden');
    expectError(await raw(suite.api, 'GET', '/health', { host: 'other.example' }), 403, 'edge_forbidden');
    expect((await raw(suite.api, 'GET', '/health', { host: `127.0.0.1:${suite.api.port}` })).status).toBe(200);
  });
});
