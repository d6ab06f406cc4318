import { RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DECORATORS, DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { HeaderObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import type { Access, Resource } from '@lib/businesses';
import type { AppConfig } from '@lib/core';
import { ERROR_STATUS, ErrorCode } from '@lib/http';
import { RATE_LIMITS } from '@lib/rate-limit';
import { DASHBOARD_ONLY, LIVE_MODE_ACTION, PERMISSION, PUBLIC_ROUTE } from '../auth/auth.decorators';
import { IDEMPOTENCY } from './idempotency.interceptor';
import { RATE_LIMIT_RULE } from './rate-limit.guard';

/**
 * The OpenAPI 3 document of the API, generated from the code at start and served as JSON at
 * GET /api/v1/openapi.json (public). @nestjs/swagger describes paths, parameters and success
 * responses; this file adds what our own decorators say about a route: its security, the
 * Idempotency-Key header on POSTs, and every error response the platform can give (read
 * from @Public, @RequiresPermission, @LiveModeAction, @DashboardOnly, @RateLimit,
 * @IdempotencyKeyRequired/@IdempotencyKeyIgnored), plus the route's own codes from @ApiErrors.
 */

export const OPENAPI_PATH = 'openapi.json';
export const API_ERRORS = 'openapi:errors';

const SECURITY_SCHEME = 'bearer';
const ERROR_REF = '#/components/schemas/Error';
const HEADER_REF = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * Error codes a route gives beyond those the platform adds by itself (spec §4), e.g.
 * `@ApiErrors('payment_not_cancelable', 'payment_in_flight')`; statuses come from
 * ERROR_STATUS. On a class it applies to every route of the controller; repeated uses add up.
 */
export function ApiErrors(...codes: ErrorCode[]): ClassDecorator & MethodDecorator {
  for (const code of codes) if (!Object.hasOwn(ERROR_STATUS, code)) throw new Error(`@ApiErrors: unknown error code ${JSON.stringify(code)}`);
  return ((target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = (descriptor ? descriptor.value : target) as object;
    const existing = (Reflect.getMetadata(API_ERRORS, holder) as ErrorCode[] | undefined) ?? [];
    Reflect.defineMetadata(API_ERRORS, [...new Set([...existing, ...codes])], holder);
    return descriptor;
  }) as ClassDecorator & MethodDecorator;
}

/** `{data: <schema>}`, the shape of every successful response (spec §4). */
export function dataOf(schema: SchemaObject | ReferenceObject): SchemaObject {
  return { type: 'object', required: ['data'], properties: { data: schema } };
}

const timestamp: SchemaObject = { type: 'string', format: 'date-time' };
const nullableString: SchemaObject = { type: 'string', nullable: true };

/** Resource schemas shared by several routes (spec §2), as components. */
const SCHEMAS = {
  Business: {
    type: 'object',
    description: 'A business (spec §2).',
    required: ['kind', 'id', 'name', 'website', 'support_email', 'alert_email', 'pending_alert_email', 'status', 'suspended_at', 'email_alerts', 'product_updates', 'simulated', 'created_at', 'updated_at'],
    properties: {
      kind: { type: 'string', enum: ['business'] },
      id: { type: 'string' },
      name: { type: 'string' },
      website: nullableString,
      support_email: nullableString,
      alert_email: nullableString,
      pending_alert_email: { ...nullableString, description: 'Set while a new alert address awaits confirmation.' },
      status: { type: 'string', enum: ['active'] },
      suspended_at: { ...timestamp, nullable: true },
      email_alerts: { type: 'boolean' },
      product_updates: { type: 'boolean' },
      simulated: { type: 'boolean', description: 'A simulated business moves no real money.' },
      created_at: timestamp,
      updated_at: timestamp,
    },
  },
  Health: {
    type: 'object',
    required: ['kind', 'status'],
    properties: {
      kind: { type: 'string', enum: ['health'] },
      status: { type: 'string', enum: ['ok'] },
      store: {
        type: 'object',
        description: 'GET /health only: the event store and the position of its head.',
        properties: { adapter: { type: 'string' }, head: { type: 'string' } },
      },
      projections: {
        type: 'array',
        description: 'GET /health only: each projection and how far it lags the store.',
        items: {
          type: 'object',
          properties: { name: { type: 'string' }, state: { type: 'string' }, position: { type: 'string' }, lag: { type: 'integer' } },
        },
      },
    },
  },
} satisfies Record<string, SchemaObject>;

/** A reference to one of the shared resource schemas. */
export function schemaRef(name: keyof typeof SCHEMAS): ReferenceObject {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * Builds the document once and serves it at GET /<prefix>/openapi.json, straight on Fastify:
 * the edge check, request ids, logging, 404/405 and the error filter apply as to any route.
 * Call after the global prefix is set and before the app starts listening.
 */
export function setupOpenApi(app: NestFastifyApplication, config: AppConfig, prefix: string): OpenAPIObject {
  const document = createOpenApiDocument(app, config, prefix);
  const body = JSON.stringify(document);
  app
    .getHttpAdapter()
    .getInstance()
    .get(`/${prefix}/${OPENAPI_PATH}`, (_request, reply) => {
      void reply.type('application/json; charset=utf-8').send(body);
    });
  return document;
}

type Handler = (...args: never[]) => unknown;
/** An operation with `x-` extensions. */
type Operation = OperationObject & { [extension: `x-${string}`]: unknown };

/** What the route's metadata says about who may call it and what it can fail with. */
interface RouteFacts {
  method: string;
  /** Goes through the Nest guards (the document route itself does not). */
  guarded: boolean;
  isPublic: boolean;
  permission?: { resource: Resource; access: Access };
  liveMode: boolean;
  dashboardOnly: boolean;
  idempotency?: 'required' | 'ignored';
  rateLimit?: string;
  /** Has body, query, path or header arguments the validation pipe checks. */
  validatedInput: boolean;
  explicit: ErrorCode[];
}

export function createOpenApiDocument(app: NestFastifyApplication, config: AppConfig, prefix: string): OpenAPIObject {
  const server = `${config.apiBaseUrl ?? ''}/${prefix}`;
  const builder = new DocumentBuilder()
    .setTitle('Payments API')
    .setVersion('v1')
    .setDescription(
      [
        'Crypto and card checkouts, payments, receipts and signed webhooks.',
        '',
        'Authenticate with a secret API key: `Authorization: Bearer <API_KEY>`. Public routes need no credentials.',
        'A successful response is `{data: ...}`; every error is `{error: {code, message, field, request_id}}` (schema `Error`):',
        'branch on `code`, the codes each response can carry are listed in its description and in `x-error-codes`.',
        'Every response carries `Service-Request-Id`, except an empty 405 for a known path with another method.',
        'POST requests take an `Idempotency-Key` (1 to 255 characters): a 2xx response is replayed for 24 hours with `Idempotent-Replayed: true`.',
      ].join('\n'),
    )
    .addServer(server)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'sk_live_… / sk_test_… / rk_live_… / rk_test_…',
        description: 'A secret or restricted API key (a restricted key carries only some permissions). Publishable keys are refused here.',
      },
      SECURITY_SCHEME,
    );
  const document = SwaggerModule.createDocument(app, builder.build(), {
    ignoreGlobalPrefix: true, // paths are relative to the server, which carries the prefix
    operationIdFactory: (controller, method) => `${controller}_${method}`,
  });

  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...SCHEMAS, Error: errorSchema() },
    headers: { ...document.components?.headers, ...sharedHeaders() },
  };

  const handlers = routeHandlers(app);
  const reflector = new Reflector();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const handler = operation.operationId ? handlers.get(operation.operationId) : undefined;
      if (!handler) throw new Error(`openapi: no handler found for ${method.toUpperCase()} ${path} (${operation.operationId})`);
      describeOperation(operation as Operation, factsOf(reflector, handler, method.toUpperCase()));
    }
  }

  const own: Operation = {
    operationId: 'openapi',
    summary: 'This document',
    tags: ['meta'],
    responses: { '200': { description: 'The OpenAPI document of the API.', content: { 'application/json': { schema: { type: 'object' } } } } },
  };
  describeOperation(own, { method: 'GET', guarded: false, isPublic: true, liveMode: false, dashboardOnly: false, validatedInput: false, explicit: [] });
  document.paths[`/${OPENAPI_PATH}`] = { get: own };
  return document;
}

/** Each controller method that is a route, by the operation id @nestjs/swagger gives it. */
interface RouteHandler {
  controller: Type;
  name: string;
  handler: Handler;
}

function routeHandlers(app: NestFastifyApplication): Map<string, RouteHandler> {
  const scanner = new MetadataScanner();
  const found = new Map<string, RouteHandler>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      for (const name of scanner.getAllMethodNames(controller.prototype as object)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        // the id @nestjs/swagger gives the operation: @ApiOperation's, else Controller_method
        const custom = (Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as { operationId?: string } | undefined)?.operationId;
        const id = custom || `${controller.name}_${name}`;
        const earlier = found.get(id);
        // operation ids must be unique (OpenAPI), and they are how a route finds its metadata
        if (earlier && earlier.handler !== handler) throw new Error(`openapi: two routes have the operation id ${id}: give one another name or @ApiOperation({operationId})`);
        found.set(id, { controller, name, handler: handler as Handler });
      }
    }
  }
  return found;
}

function factsOf(reflector: Reflector, { controller, name, handler }: RouteHandler, method: string): RouteFacts {
  const targets = [handler, controller];
  const meta = <T>(key: string) => reflector.getAllAndOverride<T | undefined>(key, targets);
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, { index: number; pipes?: unknown[] }>;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, name) ?? []) as unknown[];
  const validated = [RouteParamtypes.BODY, RouteParamtypes.QUERY, RouteParamtypes.PARAM, RouteParamtypes.HEADERS].map(String);
  // the validation pipe checks DTO classes (primitives pass through); a pipe of the argument's own can refuse too
  const checked = Object.entries(args).some(
    ([key, arg]) => validated.includes(key.split(':')[0]) && ((arg.pipes?.length ?? 0) > 0 || !PRIMITIVES.has(types[arg.index])),
  );
  const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
  return {
    method: requestMethod === undefined ? method : RequestMethod[requestMethod] === 'ALL' ? method : RequestMethod[requestMethod],
    guarded: true,
    isPublic: meta<boolean>(PUBLIC_ROUTE) === true,
    permission: meta(PERMISSION),
    liveMode: meta<boolean>(LIVE_MODE_ACTION) === true,
    dashboardOnly: meta<boolean>(DASHBOARD_ONLY) === true,
    idempotency: meta(IDEMPOTENCY),
    rateLimit: meta(RATE_LIMIT_RULE),
    validatedInput: checked,
    explicit: reflector.getAllAndMerge<ErrorCode[]>(API_ERRORS, targets) ?? [],
  };
}

const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Object, Array, undefined]);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']); // Fastify parses a body on these

/** The error codes a route can answer with, each with when (in order of the checks). */
export function routeErrors(facts: RouteFacts): Map<ErrorCode, string> {
  const errors = new Map<ErrorCode, string>();
  const add = (code: ErrorCode, when: string) => {
    const earlier = errors.get(code);
    errors.set(code, earlier ? [earlier, when].filter(Boolean).join('; or ') : when);
  };
  const keySent = facts.isPublic ? ' (only when an API key is sent anyway)' : '';
  const takesBody = BODY_METHODS.has(facts.method);
  const idempotent = facts.method === 'POST' && facts.idempotency !== 'ignored';

  add('edge_forbidden', 'the request did not come through the API’s own address');
  if (takesBody) {
    add('invalid_json', 'the body is not valid JSON or not UTF-8');
    add('payload_too_large', 'the body is larger than 1 MiB');
    add('unsupported_media_type', 'a body was sent without Content-Type: application/json');
  }
  if (facts.guarded) {
    if (!facts.isPublic) add('unauthenticated', 'no API key was sent');
    add('invalid_api_key', `the key is invalid or revoked${facts.isPublic ? '' : ', a publishable key'}, or the Authorization header is not "Bearer <key>"${keySent}`);
    if (facts.dashboardOnly) add('session_required', 'this route is for dashboard sessions only; API keys are refused');
    add('business_forbidden', `the Service-Business header names a business the caller cannot act for${keySent}`);
    if (!facts.dashboardOnly && !facts.isPublic) {
      const lacks = facts.permission ? `the restricted key lacks ${facts.permission.access} access to ${facts.permission.resource}` : 'restricted keys cannot use this route';
      add('permission_denied', `${lacks}${keySent}`);
    }
    if (facts.liveMode) add('test_mode_unavailable', `a test key cannot do this on a live business${keySent}`);
    if (facts.rateLimit) {
      const rule = RATE_LIMITS.find((r) => r.name === facts.rateLimit);
      const budget = rule ? `more than ${rule.points} requests per ${duration(rule.durationSec)} per ${rule.per === 'ip' ? 'IP address' : 'business'}` : 'too many requests';
      add('rate_limited', `${budget}; wait Retry-After seconds`);
    }
  }
  if (facts.idempotency === 'required' && facts.method === 'POST') add('idempotency_key_required', 'no Idempotency-Key header was sent');
  if (idempotent) add('invalid_request', 'Idempotency-Key is not 1 to 255 characters');
  if (takesBody || facts.validatedInput) add('invalid_request', 'a field is missing, unknown or invalid; `field` names it');
  if (idempotent) {
    add('idempotency_key_reused', 'the Idempotency-Key was used for a different method, path or body');
    add('idempotency_key_in_use', 'the first request with this Idempotency-Key is still running');
  }
  for (const code of facts.explicit) add(code, '');
  add('not_found', 'nothing with that ID for the business, or no such path');
  add('internal_error', `failure on the service’s side${idempotent ? '; retry with the same Idempotency-Key' : ''}`);
  return errors;
}

function duration(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Unavailable',
};

function describeOperation(operation: Operation, facts: RouteFacts): void {
  operation.security = facts.isPublic ? [] : [{ [SECURITY_SCHEME]: [] }];
  const notes: string[] = [];
  if (facts.isPublic) notes.push('Public: no credentials needed (a key sent anyway must be valid).');
  if (facts.dashboardOnly) notes.push('Dashboard sessions only: API keys get 403 session_required.');
  if (facts.permission) notes.push(`Restricted keys need ${facts.permission.access} access to ${facts.permission.resource}.`);
  if (facts.liveMode) notes.push('A test key on a live business gets 403 test_mode_unavailable.');
  if (facts.method === 'POST' && facts.idempotency === 'ignored') notes.push('The Idempotency-Key is ignored: the response is never stored or replayed.');
  if (notes.length > 0) operation.description = [operation.description, ...notes].filter(Boolean).join('\n\n');
  operation['x-auth'] = facts.isPublic ? 'public' : facts.dashboardOnly ? 'dashboard_session' : 'api_key';
  if (facts.permission) operation['x-permission'] = facts.permission;
  if (facts.rateLimit) operation['x-rate-limit'] = facts.rateLimit;

  if (facts.method === 'POST' && facts.idempotency !== 'ignored') {
    const required = facts.idempotency === 'required';
    const header: ParameterObject = {
      name: 'Idempotency-Key',
      in: 'header',
      required,
      description: `${required ? 'Required' : 'Optional'}: a new random value per operation (1 to 255 characters). A 2xx response is kept 24 hours and replayed for the same key, method, path and body.`,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    };
    operation.parameters = [...(operation.parameters ?? []).filter((p) => !('name' in p && p.name.toLowerCase() === 'idempotency-key')), header];
    operation['x-idempotency'] = required ? 'required' : 'optional';
  } else if (facts.method === 'POST') {
    operation['x-idempotency'] = 'ignored';
  }

  // success responses (from @nestjs/swagger) gain the request id (and the replay mark on POST)
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!/^2/.test(status) || !response || '$ref' in response) continue;
    if (!response.description) response.description = 'Success.';
    response.headers = { ...response.headers, 'Service-Request-Id': HEADER_REF('Service-Request-Id') };
    if (facts.method === 'POST' && facts.idempotency !== 'ignored') response.headers['Idempotent-Replayed'] = HEADER_REF('Idempotent-Replayed');
  }

  const byStatus = new Map<number, [ErrorCode, string][]>();
  for (const [code, when] of routeErrors(facts)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), [code, when]]);
  }
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status)!;
    const existing = operation.responses[String(status)];
    const lead = existing && !('$ref' in existing) && existing.description ? existing.description : (STATUS_TEXT[status] ?? 'Error');
    const headers: Record<string, { $ref: string }> = { 'Service-Request-Id': HEADER_REF('Service-Request-Id') };
    if (status === 401) headers['WWW-Authenticate'] = HEADER_REF('WWW-Authenticate');
    if (codes.some(([code]) => code === 'rate_limited')) headers['Retry-After'] = HEADER_REF('Retry-After');
    const response: ResponseObject & { 'x-error-codes': string[] } = {
      description: [`${lead}. Error codes:`, ...codes.map(([code, when]) => `- \`${code}\`${when ? `: ${when}` : ''}`)].join('\n'),
      headers,
      content: { 'application/json': { schema: { $ref: ERROR_REF } } },
      'x-error-codes': codes.map(([code]) => code),
    };
    operation.responses[String(status)] = response;
  }
}

function errorSchema(): SchemaObject {
  return {
    type: 'object',
    description: 'Every error response (spec §7). Branch on `code`; `message` is for people and may change.',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message', 'field', 'request_id'],
        properties: {
          code: { type: 'string', enum: Object.keys(ERROR_STATUS), description: 'Stable error code.' },
          message: { type: 'string', description: 'For people; may change.' },
          field: { type: 'string', nullable: true, description: 'The input at fault, as a dotted path, when there is one.' },
          request_id: { type: 'string', description: 'Equals the Service-Request-Id header.', example: 'req_0123456789abcdefghijklmn' },
        },
        additionalProperties: true, // some codes carry more, such as the time a quote ends
      },
    },
  };
}

function sharedHeaders(): Record<string, HeaderObject> {
  return {
    'Service-Request-Id': { description: 'The request’s id; equals `error.request_id` on errors.', schema: { type: 'string' } },
    'Idempotent-Replayed': { description: '`true` when this is a stored response replayed for the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
    'WWW-Authenticate': { description: '`Bearer`.', schema: { type: 'string' } },
    'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  };
}
