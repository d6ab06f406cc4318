import { Controller, Get, Module, Param, Post, Query } from '@nestjs/common';
import { IsString } from 'class-validator';
import { ApiOperation } from '@nestjs/swagger';
import type { OpenAPIObject, OperationObject, ParameterObject, ResponseObject } from '@nestjs/swagger';
import { request as httpRequest } from 'node:http';
import { ERROR_STATUS, ErrorCode } from '@lib/http';
import { LiveModeAction, Public, RequiresPermission } from '../../apps/api/src/auth/auth.decorators';
import { IdempotencyKeyIgnored, IdempotencyKeyRequired } from '../../apps/api/src/platform/idempotency.interceptor';
import { REFERENCE_PATH } from '../../apps/api/src/platform/api-reference';
import { ApiErrors } from '../../apps/api/src/platform/openapi';
import { RateLimit } from '../../apps/api/src/platform/rate-limit.guard';
import { TestApi, startTestApi } from '../support/api-app';

type ErrorResponse = ResponseObject & { 'x-error-codes': string[] };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

async function fetchDocument(api: TestApi): Promise<OpenAPIObject> {
  const response = await fetch(`${api.base}/openapi.json`);
  expect(response.status).toBe(200);
  return (await response.json()) as OpenAPIObject;
}

function operation(doc: OpenAPIObject, method: (typeof METHODS)[number], path: string): OperationObject {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`no ${method.toUpperCase()} ${path} in the document`);
  return found;
}

function errorResponse(op: OperationObject, status: number): ErrorResponse {
  const response = op.responses[String(status)];
  if (!response) throw new Error(`no ${status} response`);
  return response as ErrorResponse;
}

function operations(doc: OpenAPIObject): [string, string, OperationObject][] {
  return Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m): [string, string, OperationObject] => [m, path, item[m]!]));
}

/**
 * Every route Fastify registered under /api/v1 (HEAD and OPTIONS aside), as OpenAPI paths under
 * the server URL. The only routes outside /api/v1 are the API reference page's (GET /docs…).
 */
function registeredRoutes(api: TestApi): { method: string; path: string }[] {
  const routes = api.app
    .getHttpAdapter()
    .getInstance()
    .routeTable.list()
    .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS');
  for (const r of routes.filter((r) => !r.url.startsWith('/api/v1/'))) expect(`${r.method} ${r.url}`).toMatch(new RegExp(`^GET ${REFERENCE_PATH}(/|$)`));
  return routes
    .filter((r) => r.url.startsWith('/api/v1/'))
    .map((r) => ({ method: r.method.toLowerCase(), path: r.url.slice('/api/v1'.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}') }));
}

function expectDocumentInvariants(api: TestApi, doc: OpenAPIObject) {
  const routes = registeredRoutes(api);
  expect(routes.length).toBeGreaterThan(0);
  for (const { method, path } of routes) expect(doc.paths[path]?.[method as (typeof METHODS)[number]]).toBeDefined();
  // and nothing else: the document describes exactly the routes that exist
  expect(operations(doc).map(([m, p]) => `${m} ${p}`).sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());

  for (const [method, path, op] of operations(doc)) {
    for (const [status, response] of Object.entries(op.responses)) {
      if (Number(status) < 400) continue;
      const error = response as ErrorResponse;
      expect({ at: `${method} ${path} ${status}`, schema: error.content?.['application/json']?.schema }).toEqual({ at: `${method} ${path} ${status}`, schema: { $ref: '#/components/schemas/Error' } });
      expect(error['x-error-codes'].length).toBeGreaterThan(0);
      for (const code of error['x-error-codes']) {
        expect(ERROR_STATUS[code as ErrorCode]).toBe(Number(status));
        expect(error.description).toContain(`\`${code}\``);
      }
      expect(error.headers?.['Service-Request-Id']).toEqual({ $ref: '#/components/headers/Service-Request-Id' });
    }
    // every route can fail on the service's side or on a path that is not there
    expect(errorResponse(op, 500)['x-error-codes']).toEqual(['internal_error']);
    expect(errorResponse(op, 404)['x-error-codes']).toContain('not_found');
    expect(errorResponse(op, 403)['x-error-codes']).toContain('edge_forbidden');
  }
}

function raw(api: TestApi, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: api.port, method, path: `/api/v1${path}`, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('OpenAPI document of the real app', () => {
  let api: TestApi;
  let doc: OpenAPIObject;
  beforeAll(async () => {
    api = await startTestApi();
    doc = await fetchDocument(api);
  });
  afterAll(async () => api?.close());

  it('is served at GET /api/v1/openapi.json without credentials, as JSON with a request id', async () => {
    const response = await fetch(`${api.base}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('service-request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
    const body = (await response.json()) as OpenAPIObject;
    expect(body.openapi).toMatch(/^3\./);
    expect(body.info).toMatchObject({ title: expect.any(String), version: 'v1', description: expect.any(String) });
    expect(body.servers).toEqual([{ url: '/api/v1' }]);
    expect(body.components?.securitySchemes?.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('goes through the edge check and the 405 handling like every route', async () => {
    const refused = await raw(api, 'GET', '/openapi.json', { host: 'evil.example' });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error).toMatchObject({ code: 'edge_forbidden', request_id: refused.headers['service-request-id'] });
    const wrongMethod = await raw(api, 'POST', '/openapi.json');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toContain('GET');
  });

  it('describes every registered route, and only those; every error response references Error', () => {
    expectDocumentInvariants(api, doc);
    expect(doc.paths['/openapi.json']?.get).toBeDefined();
    expect(doc.paths['/health']?.get).toBeDefined();
  });

  it('describes the success answers of the payment routes with their objects', () => {
    const success = (method: (typeof METHODS)[number], path: string, status: number) =>
      JSON.stringify((operation(doc, method, path).responses[String(status)] as ResponseObject)?.content?.['application/json']?.schema ?? null);
    expect(success('post', '/payments', 201)).toContain('"pmt_…"');
    expect(success('get', '/payments', 200)).toContain('has_more');
    expect(success('get', '/payments/{id}', 200)).toContain('"events"');
    expect(success('post', '/payments/{id}/request-remainder', 201)).toContain('remainder_request');
    for (const path of ['/checkouts', '/checkouts/{id}/cancel', '/checkouts/{id}/claim', '/checkouts/{id}/mark-sent', '/checkouts/{id}/supersede']) {
      expect(success('post', path, path === '/checkouts' ? 201 : 200)).toContain('"chk_…"');
    }
    expect(success('get', '/public/receipts/{id}', 200)).toContain('"receipt"');
    expect(success('post', '/test_clock/advance', 200)).toContain('test_clock');
    const list = operation(doc, 'get', '/payments').parameters as ParameterObject[];
    expect(list.map((p) => p.name)).toEqual(expect.arrayContaining(['status', 'metadata[key]', 'customer', 'reference', 'limit', 'cursor']));
  });

  it('defines the error envelope once, with every error code', () => {
    const schema = doc.components?.schemas?.Error as { properties: { error: { required: string[]; properties: Record<string, { enum?: string[]; nullable?: boolean }> } } };
    expect(schema.properties.error.required).toEqual(['code', 'message', 'field', 'request_id']);
    expect(schema.properties.error.properties.code.enum).toEqual(Object.keys(ERROR_STATUS));
    expect(schema.properties.error.properties.field.nullable).toBe(true);
  });

  it('gives GET /business bearer security and its 401 and 403 codes', () => {
    const op = operation(doc, 'get', '/business');
    expect(op.security).toEqual([{ bearer: [] }]);
    const unauthenticated = errorResponse(op, 401);
    expect(unauthenticated['x-error-codes']).toEqual(['unauthenticated', 'invalid_api_key']);
    expect(unauthenticated.description).toContain('`unauthenticated`');
    expect(unauthenticated.headers?.['WWW-Authenticate']).toBeDefined();
    const forbidden = errorResponse(op, 403);
    expect(forbidden['x-error-codes']).toEqual(expect.arrayContaining(['permission_denied', 'business_forbidden']));
    expect(forbidden.description).toMatch(/`permission_denied`: the restricted key lacks read access to business/);
    expect(op.responses['200']).toMatchObject({ content: { 'application/json': { schema: { properties: { data: { $ref: '#/components/schemas/Business' } } } } } });
    // a GET takes no body and no Idempotency-Key
    expect(op.responses['413']).toBeUndefined();
    expect(op.responses['409']).toBeUndefined();
  });

  it('marks the dashboard-only route with 403 session_required', () => {
    const op = operation(doc, 'get', '/api_keys');
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(errorResponse(op, 403)['x-error-codes']).toContain('session_required');
    expect(errorResponse(op, 403)['x-error-codes']).not.toContain('permission_denied');
  });

  it('gives public routes no security and no 401 unauthenticated', () => {
    for (const path of ['/health', '/openapi.json']) {
      const op = operation(doc, 'get', path);
      expect(op.security).toEqual([]);
      expect(errorResponse(op, 403)['x-error-codes']).toContain('edge_forbidden');
      expect((op.responses['401'] as ErrorResponse | undefined)?.['x-error-codes'] ?? []).not.toContain('unauthenticated');
    }
    // the document route bypasses the guard altogether
    expect(operation(doc, 'get', '/openapi.json').responses['401']).toBeUndefined();
  });
});

class SearchQuery {
  @IsString() q!: string;
}

@Controller('probe-openapi')
class ProbeOpenApiController {
  @RequiresPermission('payments', 'write')
  @LiveModeAction()
  @IdempotencyKeyRequired()
  @RateLimit('checkouts.create')
  @ApiErrors('payment_not_cancelable', 'payment_in_flight', 'payment_expired')
  @Post('payments/:id/cancel')
  cancel(@Param('id') id: string) {
    return { data: { id } };
  }

  @Public()
  @IdempotencyKeyIgnored()
  @Post('secrets')
  secret() {
    return { data: {} };
  }

  @Public()
  @Post('open')
  open() {
    return { data: {} };
  }

  @ApiOperation({ operationId: 'probeSearch' })
  @Get('search')
  search(@Query() query: SearchQuery) {
    return { data: query };
  }

  @Get('items/:id')
  item(@Param('id') id: string) {
    return { data: { id } };
  }
}
@Module({ controllers: [ProbeOpenApiController] })
class ProbeOpenApiModule {}

describe('OpenAPI errors derived from route metadata', () => {
  let api: TestApi;
  let doc: OpenAPIObject;
  beforeAll(async () => {
    api = await startTestApi({ API_BASE_URL: 'https://api.payments.example' }, [ProbeOpenApiModule]);
    doc = await fetchDocument(api);
  });
  afterAll(async () => api?.close());

  const codes = (op: OperationObject, status: number) => errorResponse(op, status)['x-error-codes'];

  it('names the public server address', () => {
    expect(doc.servers).toEqual([{ url: 'https://api.payments.example/api/v1' }]);
    expectDocumentInvariants(api, doc);
  });

  it('derives a POST route’s errors from its decorators and adds those of @ApiErrors', () => {
    const op = operation(doc, 'post', '/probe-openapi/payments/{id}/cancel');
    expect(op.security).toEqual([{ bearer: [] }]);
    const key = (op.parameters as ParameterObject[]).find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    expect(key).toMatchObject({ required: true, schema: { type: 'string', minLength: 1, maxLength: 255 } });
    expect((op.parameters as ParameterObject[]).find((p) => p.in === 'path')).toMatchObject({ name: 'id', required: true });
    expect(codes(op, 400)).toEqual(expect.arrayContaining(['invalid_json', 'idempotency_key_required', 'invalid_request']));
    expect(codes(op, 401)).toEqual(['unauthenticated', 'invalid_api_key']);
    expect(codes(op, 403)).toEqual(expect.arrayContaining(['edge_forbidden', 'business_forbidden', 'permission_denied', 'test_mode_unavailable']));
    expect(errorResponse(op, 403).description).toContain('lacks write access to payments');
    expect(codes(op, 409)).toEqual(['idempotency_key_reused', 'idempotency_key_in_use', 'payment_not_cancelable', 'payment_in_flight']);
    expect(codes(op, 410)).toEqual(['payment_expired']);
    expect(codes(op, 413)).toEqual(['payload_too_large']);
    expect(codes(op, 415)).toEqual(['unsupported_media_type']);
    expect(codes(op, 429)).toEqual(['rate_limited']);
    expect(errorResponse(op, 429).description).toContain('30 requests per 10 minutes per IP address');
    expect(errorResponse(op, 429).headers?.['Retry-After']).toBeDefined();
    expect((op.responses['201'] as ResponseObject).headers?.['Idempotent-Replayed']).toBeDefined();
  });

  it('leaves the Idempotency-Key out where it is ignored and optional where not required', () => {
    const ignored = operation(doc, 'post', '/probe-openapi/secrets');
    expect(ignored.security).toEqual([]);
    expect((ignored.parameters ?? []).some((p) => 'name' in p && p.name === 'Idempotency-Key')).toBe(false);
    expect(ignored.responses['409']).toBeUndefined();
    expect(codes(ignored, 400)).not.toContain('idempotency_key_required');

    const open = operation(doc, 'post', '/probe-openapi/open');
    expect((open.parameters as ParameterObject[]).find((p) => p.name === 'Idempotency-Key')).toMatchObject({ in: 'header', required: false });
    expect(codes(open, 409)).toEqual(['idempotency_key_reused', 'idempotency_key_in_use']);
    expect(codes(open, 400)).not.toContain('idempotency_key_required');
  });

  it('gives a route without @RequiresPermission permission_denied for restricted keys', () => {
    const op = operation(doc, 'get', '/probe-openapi/items/{id}');
    expect(codes(op, 403)).toContain('permission_denied');
    expect(errorResponse(op, 403).description).toContain('restricted keys cannot use this route');
    expect(op.responses['400']).toBeUndefined(); // a string path parameter is not validated, and a GET has no body
    expect(codes(operation(doc, 'get', '/probe-openapi/search'), 400)).toEqual(['invalid_request']); // a query DTO is
    // a route named by @ApiOperation({operationId}) still finds its metadata
    const search = operation(doc, 'get', '/probe-openapi/search');
    expect(search.operationId).toBe('probeSearch');
    expect(search.security).toEqual([{ bearer: [] }]);
  });

  it('refuses an unknown code in @ApiErrors', () => {
    expect(() => ApiErrors('no_such_code' as ErrorCode)).toThrow(/unknown error code/);
  });
});
