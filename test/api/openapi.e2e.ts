import { Body, Controller, Get, Module, Param, Post, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { Allow, ArrayMaxSize, ArrayMinSize, IsArray, IsEmail, IsEnum, IsInt, IsOptional, IsString, Length, Matches, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { ApiOperation, ApiProperty } from '@nestjs/swagger';
import type { OpenAPIObject, OperationObject, ParameterObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { request as httpRequest } from 'node:http';
import { ERROR_STATUS, ErrorCode } from '@lib/http';
import { LiveModeAction, Public, RequiresPermission } from '../../apps/api/src/auth/auth.decorators';
import { IdempotencyKeyIgnored, IdempotencyKeyRequired } from '../../apps/api/src/platform/idempotency.interceptor';
import { checkoutPagePath } from '@lib/checkout-page';
import { REFERENCE_PATH } from '../../apps/api/src/platform/api-reference';
import { ApiErrors, describeApi } from '../../apps/api/src/platform/openapi';
import { OPERATION_IDS } from '../../apps/api/src/platform/operation-ids';
import { RateLimit } from '../../apps/api/src/platform/rate-limit.guard';
import { RouteRules } from '../../apps/api/src/platform/route-presets';
import { TestApi, appPerSuite, startTestApi } from '../support/fixtures';

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
 * the server URL. The only routes outside /api/v1 are the API reference page's (GET /docs…) and
 * the hosted checkout page's (GET /checkout/…, decision 0027);
 * the simulated card processors' secure pages (/simulated-processor/…, HTML, decision 0026).
 */
function registeredRoutes(api: TestApi): { method: string; path: string }[] {
  const routes = api.app
    .getHttpAdapter()
    .getInstance()
    .routeTable.list()
    .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS');
  const outside = new RegExp(`^(GET (${REFERENCE_PATH}(/|$)|${checkoutPagePath(api.config)}(/|$))|(GET|POST) /simulated-processor/attempts/)`);
  for (const r of routes.filter((r) => !r.url.startsWith('/api/v1/'))) expect(`${r.method} ${r.url}`).toMatch(outside);
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
  const suite = appPerSuite(
    () => startTestApi(),
    async (api) => ({ doc: await fetchDocument(api) }),
  );

  it('is served at GET /api/v1/openapi.json without credentials, as JSON with a request id', async () => {
    const response = await fetch(`${suite.api.base}/openapi.json`);
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
    const refused = await raw(suite.api, 'GET', '/openapi.json', { host: 'evil.example' });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error).toMatchObject({ code: 'edge_forbidden', request_id: refused.headers['service-request-id'] });
    const wrongMethod = await raw(suite.api, 'POST', '/openapi.json');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toContain('GET');
  });

  it('describes every registered route, and only those; every error response references Error', () => {
    expectDocumentInvariants(suite.api, suite.doc);
    expect(suite.doc.paths['/openapi.json']?.get).toBeDefined();
    expect(suite.doc.paths['/health']?.get).toBeDefined();
  });

  it('describes every success answer by $ref to a named component: {data: <Resource>} or a <Resource>List', () => {
    const success = (method: (typeof METHODS)[number], path: string, status: number) =>
      (operation(suite.doc, method, path).responses[String(status)] as ResponseObject)?.content?.['application/json']?.schema;
    const data = (name: string) => ({ type: 'object', required: ['data'], properties: { data: { $ref: `#/components/schemas/${name}` } } });
    expect(success('post', '/payments', 201)).toEqual(data('Payment'));
    expect(success('get', '/payments', 200)).toEqual({ $ref: '#/components/schemas/PaymentList' });
    expect(success('get', '/payments/{id}', 200)).toEqual(data('Payment'));
    expect(success('post', '/payments/{id}/request-remainder', 201)).toEqual(data('RemainderRequest'));
    for (const path of ['/checkouts', '/checkouts/{id}/cancel', '/checkouts/{id}/claim', '/checkouts/{id}/mark-sent', '/checkouts/{id}/supersede']) {
      expect(success('post', path, path === '/checkouts' ? 201 : 200)).toEqual(data('Checkout'));
    }
    expect(success('get', '/public/receipts/{id}', 200)).toEqual(data('Receipt'));
    expect(success('post', '/test_clock/advance', 200)).toEqual(data('TestClock'));
    expect(success('post', '/webhooks', 201)).toEqual(data('WebhookEndpointWithSecret'));
    expect(success('post', '/webhooks/{id}/rotate-secret', 200)).toEqual(data('WebhookEndpointWithSecret'));
    expect(success('get', '/webhooks/{id}', 200)).toEqual(data('WebhookEndpoint'));
    expect(success('get', '/webhooks/{id}/deliveries', 200)).toEqual({ $ref: '#/components/schemas/WebhookDeliveryList' });
    expect(success('get', '/events', 200)).toEqual({ $ref: '#/components/schemas/EventList' });
    expect(success('get', '/health', 200)).toEqual(data('Health'));
    expect(success('get', '/business', 200)).toEqual(data('Business'));

    // every 2xx refers to a component; no resource is inlined (DELETE /wallet, the last undescribed stub, answers since decision 0041)
    const undescribed: string[] = [];
    for (const [method, path, op] of operations(suite.doc)) {
      if (path === '/openapi.json') continue;
      for (const [status, response] of Object.entries(op.responses)) {
        const schema = (response as ResponseObject).content?.['application/json']?.schema as Record<string, unknown> | undefined;
        if (!/^2/.test(status)) continue;
        if ((response as { 'x-undescribed'?: boolean })['x-undescribed']) {
          undescribed.push(`${method} ${path} ${status}`);
          continue;
        }
        const target = (schema?.$ref ?? (schema?.properties as Record<string, { $ref?: string }> | undefined)?.data?.$ref) as string | undefined;
        expect({ at: `${method} ${path} ${status}`, target }).toEqual({ at: `${method} ${path} ${status}`, target: expect.stringMatching(/^#\/components\/schemas\/[A-Z]/) });
      }
    }
    expect(undescribed.sort()).toEqual([]);
    const list = operation(suite.doc, 'get', '/payments').parameters as ParameterObject[];
    expect(list.map((p) => p.name)).toEqual(expect.arrayContaining(['status', 'metadata', 'customer', 'reference', 'limit', 'cursor']));
    expect(list.find((p) => p.name === 'metadata')).toMatchObject({ in: 'query', style: 'deepObject', explode: true, schema: { type: 'object', additionalProperties: { type: 'string' } } });
    expect(list.find((p) => p.name === 'limit')?.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
  });

  it('documents Cache-Control: no-store on every answer holding a secret in full, and only there (@ShownOnce; audit F6)', () => {
    const SECRET_FIELDS = ['secret', 'recovery_phrase', 'recovery_codes'];
    const schemas = suite.doc.components?.schemas as Record<string, SchemaObject>;
    const secretComponents = Object.keys(schemas).filter((name) => SECRET_FIELDS.some((f) => schemas[name].properties?.[f] !== undefined));
    // CreateWalletBody is a request body (an imported wallet's phrase), never an answer
    expect(secretComponents.sort()).toEqual(['CreateWalletBody', 'NewApiKey', 'RecoveryPhrase', 'TwoFactorEnabled', 'TwoFactorSetup', 'WalletWithRecoveryPhrase', 'WebhookEndpointWithSecret']);
    const holding: string[] = [];
    const marked: string[] = [];
    for (const [method, path, op] of operations(suite.doc)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^2/.test(status)) continue;
        const { content, headers } = response as ResponseObject;
        const target = ((content?.['application/json']?.schema as SchemaObject | undefined)?.properties?.data as { $ref?: string } | undefined)?.$ref;
        if (target && secretComponents.includes(target.replace('#/components/schemas/', ''))) holding.push(`${method} ${path} ${status}`);
        if (headers?.['Cache-Control']) {
          expect(headers['Cache-Control']).toEqual({ $ref: '#/components/headers/Cache-Control' });
          marked.push(`${method} ${path} ${status}`);
        }
      }
    }
    expect(marked.sort()).toEqual(holding.sort());
    expect(holding.sort()).toEqual(
      ['post /api-keys 201', 'post /api-keys/{id}/roll 200', 'post /me/two-factor 200', 'post /me/two-factor/setup 201', 'post /wallet 201', 'post /wallet/recovery-phrase 200', 'post /webhooks 201', 'post /webhooks/{id}/rotate-secret 200'].sort(),
    );
    expect(suite.doc.components?.headers?.['Cache-Control']).toMatchObject({ schema: { type: 'string', enum: ['no-store'] } });
  });

  it('names a component for every resource of spec §2 that exists, the list envelope and each list', () => {
    const schemas = suite.doc.components!.schemas as Record<string, SchemaObject>;
    for (const name of ['Payment', 'Checkout', 'Receipt', 'RemainderRequest', 'TestClock', 'Business', 'WebhookEndpoint', 'WebhookEndpointWithSecret', 'WebhookDelivery', 'Event', 'Health', 'ListEnvelope', 'Error']) {
      expect({ name, type: schemas[name]?.type }).toEqual({ name, type: 'object' });
    }
    expect(schemas.ListEnvelope).toMatchObject({ required: ['data', 'has_more', 'next_cursor'], properties: { has_more: { type: 'boolean' }, next_cursor: { type: 'string', nullable: true } } });
    expect(schemas.PaymentList).toEqual({
      description: expect.any(String),
      allOf: [{ $ref: '#/components/schemas/ListEnvelope' }, { type: 'object', required: ['data'], properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Payment' } } } }],
    });
    // nullable fields say so, timestamps are date-times, the kind is a constant
    const payment = schemas.Payment as { properties: Record<string, SchemaObject>; required: string[]; additionalProperties: boolean };
    expect(payment.properties.reference).toMatchObject({ type: 'string', nullable: true });
    expect(payment.properties.created_at).toEqual({ type: 'string', format: 'date-time' });
    expect(payment.properties.expires_at).toEqual({ type: 'string', format: 'date-time', nullable: true });
    expect(payment.properties.kind).toEqual({ type: 'string', enum: ['payment'] });
    expect(payment.additionalProperties).toBe(false);
    expect(payment.required).toEqual(Object.keys(payment.properties));
    const checkout = schemas.Checkout as { properties: Record<string, SchemaObject>; required: string[] };
    expect(checkout.required).not.toEqual(expect.arrayContaining(['email']));
    expect(checkout.properties.canceled_by).toEqual({ type: 'string', enum: ['customer', null], nullable: true });
    // request-remainder's 201 always carries the page (spec §4: `url` ends with s=<checkout_id>; no page left is 409 remainder_unavailable): never null (audit F4)
    const remainder = schemas.RemainderRequest as { properties: Record<string, SchemaObject>; required: string[] };
    expect(remainder.properties.url).toEqual({ type: 'string', description: expect.stringContaining('s=<checkout_id>') });
    expect(remainder.required).toContain('url');
    // every $ref of the document resolves (a component, or a property of one: propertiesOf)
    const refs = JSON.stringify(suite.doc).match(/"\$ref":"#\/components\/schemas\/[^"]+"/g) ?? [];
    const at = (pointer: string) => pointer.split('/').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], schemas);
    for (const ref of new Set(refs)) expect({ ref, at: at(ref.slice('"$ref":"#/components/schemas/'.length, -1)) }).toEqual({ ref, at: expect.anything() });
    // a component that is another with more refers to its properties instead of copying them (closed objects: no allOf)
    expect(schemas.SearchPayment).toMatchObject({ additionalProperties: false, required: schemas.Payment.required });
    expect(schemas.SearchPayment.properties!.amount).toEqual({ $ref: '#/components/schemas/Payment/properties/amount' });
  });

  it('describes every request body from the class-validator rules of the DTO its route takes', () => {
    const schemas = suite.doc.components!.schemas as Record<string, SchemaObject>;
    const body = (method: (typeof METHODS)[number], path: string) => operation(suite.doc, method, path).requestBody as { required: boolean; content: Record<string, { schema: unknown }> } | undefined;
    expect(body('post', '/payments')).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CreatePaymentBody' } } } });
    expect(schemas.CreatePaymentBody).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['amount', 'currency'],
      properties: {
        amount: { type: 'integer' },
        currency: { type: 'string', minLength: 3, maxLength: 3 },
        reference: { type: 'string', minLength: 1, maxLength: 255, nullable: true },
        customer_email: { type: 'string', maxLength: 254, nullable: true },
        metadata: { type: 'object', nullable: true },
      },
    });
    expect(schemas.AdvanceTestClockBody).toMatchObject({ required: ['seconds'], properties: { seconds: { type: 'integer', minimum: 1, maximum: 366 * 24 * 3600 } } });
    expect(schemas.MarkCheckoutSentBody).toMatchObject({ properties: { simulate: { type: 'string', enum: ['exact', 'underpaid', 'overpaid', 'wrong_network', 'late', null], nullable: true } } });
    expect(body('post', '/checkouts/{id}/mark-sent')?.required).toBe(false);
    expect(schemas.ClaimCheckoutBody).toMatchObject({ required: ['tx_hash'], properties: { tx_hash: { type: 'string', minLength: 1, maxLength: 200 } } });
    // the confirm code's length limit stays in the document, though a longer code is invalid_code, not invalid_request (audit F5)
    expect(schemas.ConfirmAlertEmailBody).toMatchObject({ required: ['code'], properties: { code: { type: 'string', maxLength: 64 } } });
    // PATCH /webhooks/{id}: null is no value of any field (@ValidateIf(o.x !== undefined))
    expect(schemas.UpdateWebhookEndpointBody).toMatchObject({ properties: { description: { type: 'string', maxLength: 500 }, enabled: { type: 'boolean' } } });
    expect(JSON.stringify(schemas.UpdateWebhookEndpointBody)).not.toContain('nullable');
    // @ApiProperty gives words only; its claims the validator does not check are left out
    expect(schemas.CreateWebhookEndpointBody).toMatchObject({ required: ['url', 'event_types'], properties: { url: { type: 'string', description: expect.stringContaining('https') } } });
    expect((schemas.CreateWebhookEndpointBody as { properties: Record<string, SchemaObject> }).properties.description.type).toBe('string');
    // a body component is named after its operation, not its class (renaming a DTO changes no client)
    expect(body('patch', '/webhooks/{id}')?.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/UpdateWebhookEndpointBody' });
    // routes that take no body have none
    for (const path of ['/payments/{id}/cancel', '/checkouts/{id}/cancel', '/webhooks/{id}/rotate-secret']) expect(body('post', path)).toBeUndefined();
    // every body is a named DTO component
    for (const [method, path, op] of operations(suite.doc)) {
      const schema = (op.requestBody as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined)?.content?.['application/json']?.schema;
      if (schema) expect({ at: `${method} ${path}`, ref: schema.$ref }).toEqual({ at: `${method} ${path}`, ref: `#/components/schemas/${op.operationId!.charAt(0).toUpperCase()}${op.operationId!.slice(1)}Body` });
    }
  });

  it('gives every operation a stable, readable id from the route table', () => {
    const ids = operations(suite.doc).map(([method, path, op]): [string, string | undefined] => [`${method.toUpperCase()} ${path}`, op.operationId]);
    for (const [route, id] of ids) expect({ route, id }).toEqual({ route, id: OPERATION_IDS[route] });
    expect(Object.keys(OPERATION_IDS).sort()).toEqual(ids.map(([route]) => route).sort());
    expect(operation(suite.doc, 'post', '/payments').operationId).toBe('createPayment');
    expect(operation(suite.doc, 'get', '/webhooks/{id}/deliveries').operationId).toBe('listWebhookEndpointDeliveries');
  });

  it('defines the error envelope once, with every error code', () => {
    const schema = suite.doc.components?.schemas?.Error as { properties: { error: { required: string[]; properties: Record<string, { enum?: string[]; nullable?: boolean }> } } };
    expect(schema.properties.error.required).toEqual(['code', 'message', 'field', 'request_id']);
    expect(schema.properties.error.properties.code.enum).toEqual(Object.keys(ERROR_STATUS));
    expect(schema.properties.error.properties.field.nullable).toBe(true);
  });

  it('gives GET /business bearer security and its 401 and 403 codes', () => {
    const op = operation(suite.doc, 'get', '/business');
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
    const op = operation(suite.doc, 'get', '/api-keys');
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(errorResponse(op, 403)['x-error-codes']).toContain('session_required');
    expect(errorResponse(op, 403)['x-error-codes']).not.toContain('permission_denied');
  });

  it('gives public routes no security and no 401 unauthenticated for a request without credentials', () => {
    for (const path of ['/health', '/openapi.json']) {
      const op = operation(suite.doc, 'get', path);
      expect(op.security).toEqual([]);
      expect(errorResponse(op, 403)['x-error-codes']).toContain('edge_forbidden');
    }
    // the forms that give a session ignore the cookie: never 401 unauthenticated
    expect(errorResponse(operation(suite.doc, 'post', '/sessions'), 401)['x-error-codes']).not.toContain('unauthenticated');
    // the others take a dashboard session sent anyway (cookie and Service-Business, decision 0034 addendum of 2026-11-29): 401 unauthenticated only for an ended one
    for (const [method, path] of [['get', '/health'], ['get', '/checkouts/{id}'], ['post', '/checkouts']] as const) {
      const op = operation(suite.doc, method, path);
      const unauthenticated = errorResponse(op, 401);
      expect(unauthenticated['x-error-codes']).toEqual(['unauthenticated', 'invalid_api_key']);
      expect(unauthenticated.description).toContain('- `unauthenticated`: a dashboard session cookie was sent with the Service-Business header, but the session ended or expired\n');
      expect(errorResponse(op, 403).description).toContain('- `business_forbidden`: the Service-Business header names a business the caller cannot act for (only when an API key, or a dashboard session cookie with the Service-Business header, is sent anyway)');
      expect(errorResponse(op, 403)['x-error-codes']).toContain('cross_site_request');
      expect((op.responses['400'] as ErrorResponse | undefined)?.['x-error-codes'] ?? []).not.toContain('business_required'); // a cookie without the header is anonymous there
    }
    // the document route bypasses the guard altogether
    expect(operation(suite.doc, 'get', '/openapi.json').responses['401']).toBeUndefined();
  });
});

class SearchQuery {
  @IsString() q!: string;
}

class OrderLine {
  @IsString() @Matches(/^sku_[a-z0-9]+$/) sku!: string;
  @IsInt() @Min(1) @Max(99) quantity!: number;
}

enum Speed {
  Slow = 'slow',
  Fast = 'fast',
}

class OrderBody {
  @IsEmail() email!: string;
  @IsOptional() @IsEnum(Speed) speed?: Speed;
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(5) @ValidateNested({ each: true }) @Type(() => OrderLine) lines!: OrderLine[];
  @ValidateIf((o: OrderBody) => o.note !== undefined) @IsString() @Length(1, 280) note?: string;
  @ApiProperty({ description: 'Anything.', maxLength: 10 }) @Allow() extra?: unknown;
  @IsOptional() @IsString({ each: true }) @IsArray() tags?: string[];
}

class NothingBody {
  @ApiProperty({ description: 'Documented, never validated.' }) ghost?: string;
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

  @ApiOperation({ operationId: 'createOrder' })
  @RouteRules({ access: 'public', replay: false })
  @Post('orders')
  order(@Body() body: OrderBody) {
    return { data: body };
  }

  @ApiOperation({ operationId: 'sendNothing' })
  @RouteRules({ access: 'public', replay: false })
  @Post('nothing')
  nothing(@Body() body: NothingBody) {
    return { data: body };
  }
}
@Module({ controllers: [ProbeOpenApiController] })
class ProbeOpenApiModule {}

describe('OpenAPI errors derived from route metadata', () => {
  const suite = appPerSuite(
    () => startTestApi({ API_BASE_URL: 'https://api.payments.example' }, [ProbeOpenApiModule]),
    async (api) => ({ doc: await fetchDocument(api) }),
  );

  const codes = (op: OperationObject, status: number) => errorResponse(op, status)['x-error-codes'];

  it('names the public server address', () => {
    expect(suite.doc.servers).toEqual([{ url: 'https://api.payments.example/api/v1' }]);
    expectDocumentInvariants(suite.api, suite.doc);
  });

  it('derives a POST route’s errors from its decorators and adds those of @ApiErrors', () => {
    const op = operation(suite.doc, 'post', '/probe-openapi/payments/{id}/cancel');
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
    const ignored = operation(suite.doc, 'post', '/probe-openapi/secrets');
    expect(ignored.security).toEqual([]);
    expect((ignored.parameters ?? []).some((p) => 'name' in p && p.name === 'Idempotency-Key')).toBe(false);
    expect(ignored.responses['409']).toBeUndefined();
    expect(codes(ignored, 400)).not.toContain('idempotency_key_required');

    const open = operation(suite.doc, 'post', '/probe-openapi/open');
    expect((open.parameters as ParameterObject[]).find((p) => p.name === 'Idempotency-Key')).toMatchObject({ in: 'header', required: false });
    expect(codes(open, 409)).toEqual(['idempotency_key_reused', 'idempotency_key_in_use']);
    expect(codes(open, 400)).not.toContain('idempotency_key_required');
  });

  it('gives a route without @RequiresPermission permission_denied for restricted keys', () => {
    const op = operation(suite.doc, 'get', '/probe-openapi/items/{id}');
    expect(codes(op, 403)).toContain('permission_denied');
    expect(errorResponse(op, 403).description).toContain('restricted keys cannot use this route');
    expect(codes(op, 400)).toEqual(['business_required']); // a string path parameter is not validated, and a GET has no body: only a session without Service-Business (decision 0034)
    expect(codes(operation(suite.doc, 'get', '/probe-openapi/search'), 400)).toEqual(['business_required', 'invalid_request']); // a query DTO is
    // a route named by @ApiOperation({operationId}) still finds its metadata
    const search = operation(suite.doc, 'get', '/probe-openapi/search');
    expect(search.operationId).toBe('probeSearch');
    expect(search.security).toEqual([{ bearer: [] }]);
  });

  it('derives a DTO body from its validation rules: types, formats, enums, limits, patterns, nested DTOs, required and nullable by probing', () => {
    const schemas = suite.doc.components!.schemas as Record<string, SchemaObject>;
    expect(operation(suite.doc, 'post', '/probe-openapi/orders').requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateOrderBody' } } } });
    expect(schemas.CreateOrderBody).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['email', 'lines'],
      properties: {
        email: { type: 'string', format: 'email' },
        speed: { type: 'string', enum: ['slow', 'fast', null], nullable: true },
        lines: { type: 'array', minItems: 1, maxItems: 5, items: { $ref: '#/components/schemas/OrderLine' } },
        note: { type: 'string', minLength: 1, maxLength: 280 },
        extra: { description: 'Anything. May be null.' },
        tags: { type: 'array', items: { type: 'string' }, nullable: true },
      },
    });
    expect(schemas.OrderLine).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['sku', 'quantity'],
      properties: { sku: { type: 'string', pattern: '^sku_[a-z0-9]+$' }, quantity: { type: 'integer', minimum: 1, maximum: 99 } },
    });
    expect(schemas.SendNothingBody).toEqual({ type: 'object', additionalProperties: false, properties: {} });
    expect(operation(suite.doc, 'post', '/probe-openapi/nothing').requestBody).toMatchObject({ required: false });
    // the query DTO gives its parameters
    expect(operation(suite.doc, 'get', '/probe-openapi/search').parameters).toEqual(expect.arrayContaining([{ name: 'q', in: 'query', required: true, schema: { type: 'string' } }]));
  });

  it('reports what a DTO cannot say: claims @ApiProperty makes that the validator does not check, fields without a type, DTOs without rules', () => {
    const { findings } = describeApi(suite.api.app, suite.api.config, 'api/v1');
    const of = (dto: string) => findings.filter((f) => f.dto === dto).map((f) => `${f.property}: ${f.problem}`);
    expect(of('OrderBody')).toEqual([
      'extra: no validation rule (only @Allow or a condition): any value passes the pipe',
      'extra: @ApiProperty says maxLength 10 but the validator does not check it',
    ]);
    expect(of('NothingBody')).toEqual([
      'ghost: @ApiProperty without any validation rule: the pipe refuses it as an unknown field',
      'null: no validated property: the body can only be {} (unknown fields are refused)',
    ]);
    expect(of('OrderLine')).toEqual([]);
  });

  it('refuses an unknown code in @ApiErrors', () => {
    expect(() => ApiErrors('no_such_code' as ErrorCode)).toThrow(/unknown error code/);
  });
});
