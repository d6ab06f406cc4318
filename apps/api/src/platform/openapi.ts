import { RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DECORATORS, DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { HeaderObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import type { AppConfig } from '@lib/core';
import { ERROR_STATUS, ErrorCode } from '@lib/http';
import { CHALLENGE_FORM, CHALLENGE_HEADER } from '@lib/challenge';
import { RATE_LIMITS } from '@lib/rate-limit';
import { ACCOUNT_ROUTE, DASHBOARD_ONLY, LIVE_MODE_ACTION, PERMISSION, PUBLIC_ROUTE, RoutePermission, SAME_ORIGIN, describePermission } from '../auth/auth.decorators';
import { API_KEY_COMPONENTS } from '../api-keys/schemas';
import { ACCOUNT_COMPONENTS } from '../accounts/schemas';
import { TWO_FACTOR_COMPONENTS } from '../accounts/two-factor-schemas';
import { RECOVERY_COMPONENTS } from '../accounts/recovery-schemas';
import { CUSTOMER_COMPONENTS } from '../customers/schemas';
import { LINK_COMPONENTS } from '../links/schemas';
import { PAYMENT_COMPONENTS } from '../payments/schemas';
import { SEARCH_COMPONENTS } from '../search/schemas';
import { WALLET_COMPONENTS } from '../wallets/schemas';
import { WEBHOOK_COMPONENTS } from '../webhooks/schemas';
import { DtoFinding, dtoSchema, isValidatedDto } from './dto-schema';
import { IDEMPOTENCY } from './idempotency.interceptor';
import { OPERATION_IDS, derivedOperationId } from './operation-ids';
import { RATE_LIMIT_RULE } from './rate-limit.guard';
import { SHOWN_ONCE } from './shown-once';

/**
 * The OpenAPI 3 document of the API, generated from the code at start and served as JSON at
 * GET /api/v1/openapi.json (public); docs/decisions/0015-openapi-contract.md. @nestjs/swagger
 * describes paths, parameters and success responses; this file adds:
 * - what our own decorators say about a route: its security, the Idempotency-Key header on
 *   POSTs, and every error response the platform can give (read from @Public,
 *   @RequiresPermission, @LiveModeAction, @DashboardOnly, @RateLimit,
 *   @IdempotencyKeyRequired/@IdempotencyKeyIgnored, @ShownOnce), plus the route's own codes from @ApiErrors;
 * - request bodies (and query DTOs) from the class-validator rules of the DTO the handler takes
 *   (dto-schema.ts), found through Nest's route-argument metadata: the validator is the source;
 * - the named components of every resource (the schemas.ts of each route folder), the list envelope and
 *   `<Name>List` lists, the error envelope; every response refers to them by $ref;
 * - stable operation ids by route (operation-ids.ts).
 */

export const OPENAPI_PATH = 'openapi.json';
export const API_ERRORS = 'openapi:errors';
export const API_ERROR_WHEN = 'openapi:error-when';

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

/**
 * When a route answers with a code, in its own words, added to what the document says of the code
 * (e.g. a permission_denied beyond the route's permission). Repeated uses add up.
 */
export function ApiErrorWhen(code: ErrorCode, when: string): MethodDecorator {
  if (!Object.hasOwn(ERROR_STATUS, code)) throw new Error(`@ApiErrorWhen: unknown error code ${JSON.stringify(code)}`);
  return ((_target: object, _key: string | symbol, descriptor: PropertyDescriptor) => {
    const holder = descriptor.value as object;
    const existing = (Reflect.getMetadata(API_ERROR_WHEN, holder) as Partial<Record<ErrorCode, string>> | undefined) ?? {};
    Reflect.defineMetadata(API_ERROR_WHEN, { ...existing, [code]: [existing[code], when].filter(Boolean).join('; or ') }, holder);
    return descriptor;
  }) as MethodDecorator;
}

/** `{data: <schema>}`, the shape of every successful response (spec §4). */
export function dataOf(schema: SchemaObject | ReferenceObject): SchemaObject {
  return { type: 'object', required: ['data'], properties: { data: schema } };
}

const timestamp: SchemaObject = { type: 'string', format: 'date-time' };
const nullableString: SchemaObject = { type: 'string', nullable: true };
const COMPONENT_PREFIX = '#/components/schemas/';
const LIST_ENVELOPE = 'ListEnvelope';

/** Resource schemas shared by several routes (spec §2), as components. */
const SCHEMAS = {
  Business: {
    type: 'object',
    additionalProperties: false,
    description: 'A business (spec §2).',
    required: ['kind', 'id', 'name', 'website', 'support_email', 'alert_email', 'pending_alert_email', 'status', 'suspended_at', 'email_alerts', 'product_updates', 'referral_code', 'simulated', 'created_at', 'updated_at'],
    properties: {
      kind: { type: 'string', enum: ['business'] },
      id: { type: 'string' },
      name: { type: 'string' },
      website: nullableString,
      support_email: nullableString,
      alert_email: nullableString,
      pending_alert_email: { ...nullableString, description: 'Set while a new alert address awaits confirmation.' },
      status: { type: 'string', enum: ['active', 'suspended'], description: 'suspended: an operator suspended the business; it creates no payments and opens no checkouts (403 business_suspended) until reinstated.' },
      suspended_at: { ...timestamp, nullable: true, description: 'Since when the business is suspended; null while it is active.' },
      email_alerts: { type: 'boolean', description: 'Alerts (such as a payment needing review) are e-mailed to alert_email.' },
      product_updates: { type: 'boolean' },
      referral_code: { ...nullableString, description: 'The code other businesses sign up with to be referred by this one (decision 0035).' },
      simulated: { type: 'boolean', description: 'A simulated business moves no real money.' },
      created_at: timestamp,
      updated_at: timestamp,
    },
  },
  Referral: {
    type: 'object',
    additionalProperties: false,
    description: 'What a sign-up page shows for a referral code (decision 0035).',
    required: ['kind', 'code', 'referrer', 'fee_share_bps'],
    properties: {
      kind: { type: 'string', enum: ['referral'] },
      code: { type: 'string' },
      referrer: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', description: 'The referring business as its customers know it.' } } },
      fee_share_bps: { type: 'integer', description: "The referrer's share of the new business's service fees, in basis points (paid by the service, not the new business)." },
    },
  },
  CheckoutSettings: {
    type: 'object',
    additionalProperties: false,
    description: 'What customers see on the checkout page and receipts, and how they may pay (decision 0028).',
    required: ['kind', 'business_id', 'display_name', 'support_email', 'ask_email', 'rails', 'assets', 'all_assets', 'updated_at'],
    properties: {
      kind: { type: 'string', enum: ['checkout_settings'] },
      business_id: { type: 'string' },
      display_name: { ...nullableString, description: 'The name customers see; null shows the business name.' },
      support_email: { ...nullableString, description: 'The support address customers see; null shows the business support e-mail.' },
      ask_email: { type: 'boolean', description: 'A checkout without an e-mail is refused with email_required.' },
      rails: { type: 'array', items: { type: 'string', enum: ['crypto', 'card'] }, description: 'Rails customers may choose; another answers rail_unavailable.' },
      assets: {
        type: 'array',
        description: 'Coins and networks customers may pay with; another answers asset_unavailable.',
        items: { type: 'object', additionalProperties: false, required: ['asset', 'network'], properties: { asset: { type: 'string' }, network: { type: 'string' } } },
      },
      all_assets: { type: 'boolean', description: 'True while every pair the service carries is accepted (new ones included).' },
      updated_at: { ...timestamp, nullable: true, description: 'The last change; null while the defaults apply.' },
    },
  },
  Health: {
    type: 'object',
    additionalProperties: false,
    description: 'The service answers (GET /health/live), and its store too (GET /health).',
    required: ['kind', 'status'],
    properties: {
      kind: { type: 'string', enum: ['health'] },
      status: {
        type: 'string',
        enum: ['ok', 'degraded'],
        description:
          'GET /health: `degraded` while a projection retries a failing batch (its state `retrying`; the reads it serves stand still and the error is in the log), or while no process running the background work (projections, timers, webhook deliveries, chain watching) has been seen within `workers.stale_after_seconds`; `ok` otherwise. `issues` says which.',
      },
      issues: {
        type: 'array',
        description: 'GET /health only: why `status` is `degraded` (empty when `ok`).',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', enum: ['projection_retrying', 'no_worker_seen'] },
            message: { type: 'string' },
          },
        },
      },
      workers: {
        type: 'object',
        additionalProperties: false,
        description:
          'GET /health only, on every role: the processes that run the background work (role `worker`, or `all`, which counts itself), from the heartbeat each records every few seconds in the shared store.',
        required: ['running', 'last_seen_at', 'stale_after_seconds'],
        properties: {
          running: {
            type: 'array',
            description: 'Those seen within `stale_after_seconds` and not stopped, most recently seen first.',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['id', 'role', 'started_at', 'seen_at'],
              properties: {
                id: { type: 'string', description: 'Opaque, new at every start of the process (`wrk_…`); its start-up log line names it.' },
                role: { type: 'string', enum: ['worker', 'all'] },
                started_at: timestamp,
                seen_at: timestamp,
              },
            },
          },
          last_seen_at: { ...timestamp, nullable: true, description: 'The newest heartbeat of any such process, running or not (null: none in the last hour).' },
          stale_after_seconds: { type: 'integer', description: 'A process not seen for longer is no longer counted as running (WORKER_STALE_AFTER_SECONDS).' },
        },
      },
      store: {
        type: 'object',
        additionalProperties: false,
        description: 'GET /health only: the event store and the position of its head.',
        required: ['adapter', 'head'],
        properties: { adapter: { type: 'string' }, head: { type: 'string' } },
      },
      projections: {
        type: 'array',
        description: 'GET /health only: each projection and how far it lags the store.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'state', 'position', 'lag', 'updated_at'],
          properties: {
            name: { type: 'string' },
            state: { type: 'string', description: 'In this process: running, retrying, or stopped (an `api` replica runs no projection).' },
            position: { type: 'string' },
            lag: { type: 'integer', nullable: true },
            updated_at: { type: 'string', format: 'date-time', nullable: true, description: 'When any process (a worker, an `api` replica catching up) last moved its checkpoint.' },
          },
        },
      },
      chains: {
        type: 'array',
        description: "GET /health only: this process's chain watchers (worker roles), one per watched network: the block scanned, the node's head, and the node's last error while it fails (the watcher backs off).",
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['network', 'lease_held', 'height', 'head', 'lag_blocks', 'pending', 'last_error', 'backing_off_until', 'caught_up_at'],
          properties: {
            network: { type: 'string' },
            lease_held: { type: 'boolean', description: 'This process is the one watching the network (one per network across workers).' },
            height: { type: 'integer', nullable: true },
            head: { type: 'integer', nullable: true },
            lag_blocks: { type: 'integer', nullable: true },
            pending: { type: 'integer', description: 'Transfers seen and not final yet.' },
            last_error: { type: 'string', nullable: true },
            backing_off_until: { ...timestamp, nullable: true },
            caught_up_at: {
              ...timestamp,
              nullable: true,
              description: "When the watcher last asked the node for the head it then read up to: every block the node had by then has been read. A live quote ends only once its network's watcher has read through the quote's end.",
            },
          },
        },
      },
      pauses: {
        type: 'array',
        description: 'GET /health only: what the operator paused for every business (new checkouts, card payments, a network, sign-ups); those actions answer 503 temporarily_unavailable.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['target', 'reason', 'since'],
          properties: { target: { type: 'string', description: 'checkouts, card_payments, signups or network:<network>' }, reason: { type: 'string' }, since: timestamp },
        },
      },
    },
  },
  [LIST_ENVELOPE]: {
    type: 'object',
    description: 'Every list response (spec §2 Lists): a page of objects, newest first. Pass `next_cursor` as `cursor` for the next page; a cursor from one list is invalid for another.',
    required: ['data', 'has_more', 'next_cursor'],
    additionalProperties: false,
    properties: {
      data: { type: 'array', items: {}, description: 'The page.' },
      has_more: { type: 'boolean', description: 'True when another page follows.' },
      next_cursor: { type: 'string', nullable: true, description: 'The cursor of the next page; null on the last page.' },
    },
  },
} satisfies Record<string, SchemaObject>;

/** Every resource component the routes refer to (spec §2), by name. */
const RESOURCE_SCHEMAS: Record<string, SchemaObject> = { ...SCHEMAS, ...ACCOUNT_COMPONENTS, ...TWO_FACTOR_COMPONENTS, ...RECOVERY_COMPONENTS, ...API_KEY_COMPONENTS, ...PAYMENT_COMPONENTS, ...CUSTOMER_COMPONENTS, ...LINK_COMPONENTS, ...SEARCH_COMPONENTS, ...WALLET_COMPONENTS, ...WEBHOOK_COMPONENTS };

/** A reference to one of the shared resource schemas. */
export function schemaRef(name: keyof typeof SCHEMAS): ReferenceObject {
  return { $ref: `${COMPONENT_PREFIX}${name}` };
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
  permission?: RoutePermission;
  liveMode: boolean;
  dashboardOnly: boolean;
  /** A route of the signed-in person, not of a business (decision 0034). */
  accountRoute: boolean;
  /** A public route that refuses other sites (sign-up, sign-in). */
  sameOrigin: boolean;
  idempotency?: 'required' | 'ignored';
  /** @ShownOnce: the answer holds a secret shown once, with `Cache-Control: no-store`. */
  shownOnce?: boolean;
  rateLimit?: string;
  /** The form of @RequiresChallenge (libs/challenge): the route needs a bot-challenge token in Service-Challenge. */
  challenge?: string;
  /** Has body, query, path or header arguments the validation pipe checks. */
  validatedInput: boolean;
  explicit: ErrorCode[];
  /** @ApiErrorWhen: the route's own words for when it answers a code. */
  explicitWhen?: Partial<Record<ErrorCode, string>>;
}

export function createOpenApiDocument(app: NestFastifyApplication, config: AppConfig, prefix: string): OpenAPIObject {
  return describeApi(app, config, prefix).document;
}

/** The document, and what the DTO converter noticed (fields it cannot describe). */
export interface ApiDescription {
  document: OpenAPIObject;
  findings: DtoFinding[];
}

export function describeApi(app: NestFastifyApplication, config: AppConfig, prefix: string): ApiDescription {
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

  // the request DTOs' components come from their validation rules below, not from @ApiProperty
  const dtos = new DtoComponents();
  const handlers = routeHandlers(app);
  const reflector = new Reflector();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const handler = operation.operationId ? handlers.get(operation.operationId) : undefined;
      if (!handler) throw new Error(`openapi: no handler found for ${method.toUpperCase()} ${path} (${operation.operationId})`);
      if (!handler.customId) operation.operationId = OPERATION_IDS[`${method.toUpperCase()} ${path}`] ?? derivedOperationId(method, path);
      describeInput(operation as Operation, handler, dtos, operation.operationId!);
      describeOperation(operation as Operation, factsOf(reflector, handler, method.toUpperCase()));
    }
  }
  dtos.finish();

  const swaggerModels = new Set(dtos.classes().map((c) => c.name));
  const kept = Object.fromEntries(Object.entries(document.components?.schemas ?? {}).filter(([name]) => !swaggerModels.has(name)));
  document.components = {
    ...document.components,
    schemas: { ...kept, ...RESOURCE_SCHEMAS, ...dtos.schemas, Error: errorSchema() },
    headers: { ...document.components?.headers, ...sharedHeaders() },
  };

  const own: Operation = {
    operationId: 'openapi',
    summary: 'This document',
    tags: ['meta'],
    responses: { '200': { description: 'The OpenAPI document of the API.', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } } },
  };
  describeOperation(own, { method: 'GET', guarded: false, isPublic: true, liveMode: false, dashboardOnly: false, accountRoute: false, sameOrigin: false, validatedInput: false, explicit: [] });
  own.operationId = OPERATION_IDS[`GET /${OPENAPI_PATH}`];
  document.paths[`/${OPENAPI_PATH}`] = { get: own };

  addLists(document);
  checkReferences(document);
  const ids = operationsOf(document).map(([, , op]) => op.operationId);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (twice.length > 0) throw new Error(`openapi: operation ids used twice: ${twice.join(', ')}`);
  return { document, findings: dtos.findings };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

function operationsOf(document: OpenAPIObject): [string, string, OperationObject][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m): [string, string, OperationObject] => [m, path, item[m] as OperationObject]),
  );
}

/**
 * The request DTO classes met so far, each described once. A body's component is named after
 * the one operation that takes it (`createPayment` → `CreatePaymentBody`), so renaming or moving
 * the class changes nothing a generated client sees; a class several operations take, and a
 * nested DTO, is named after the class.
 */
class DtoComponents {
  readonly schemas: Record<string, SchemaObject> = {};
  readonly findings: DtoFinding[] = [];
  private readonly described = new Map<Type, SchemaObject>();
  private readonly nested = new Set<Type>();
  private readonly bodies = new Map<Type, { operationId: string; ref: ReferenceObject }[]>();

  /** The schema of `dto` (described on first use). */
  schemaOf(dto: Type): SchemaObject {
    let schema = this.described.get(dto);
    if (!schema) {
      const result = dtoSchema(dto, (cls) => this.nestedRef(cls));
      const description = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, dto) as { description?: string } | undefined)?.description;
      schema = description ? { ...result.schema, description } : result.schema;
      this.described.set(dto, schema);
      this.findings.push(...result.findings);
    }
    return schema;
  }

  /** A reference to the body component of `dto` for `operationId`, named by finish(). */
  body(dto: Type, operationId: string): ReferenceObject {
    this.schemaOf(dto);
    const ref = { $ref: '' };
    this.bodies.set(dto, [...(this.bodies.get(dto) ?? []), { operationId, ref }]);
    return ref;
  }

  /** Every class described (their names are the models @nestjs/swagger made of them, which these replace). */
  classes(): Type[] {
    return [...this.described.keys()];
  }

  finish(): void {
    const owner = new Map<string, Type>();
    const claim = (name: string, dto: Type) => {
      const earlier = owner.get(name);
      if (earlier && earlier !== dto) throw new Error(`openapi: two request DTOs would both be the component ${name}: rename ${dto.name} or ${earlier.name}`);
      owner.set(name, dto);
      this.schemas[name] = this.described.get(dto)!;
    };
    for (const dto of this.nested) claim(dto.name, dto);
    for (const [dto, uses] of this.bodies) {
      const name = uses.length === 1 ? `${uses[0].operationId.charAt(0).toUpperCase()}${uses[0].operationId.slice(1)}Body` : dto.name;
      claim(name, dto);
      for (const { ref } of uses) ref.$ref = `${COMPONENT_PREFIX}${name}`;
    }
  }

  private nestedRef(dto: Type): ReferenceObject {
    if (!this.nested.has(dto)) {
      this.nested.add(dto);
      this.schemaOf(dto);
    }
    return { $ref: `${COMPONENT_PREFIX}${dto.name}` };
  }
}

/**
 * The operation's request body and query parameters from the DTOs its handler takes (Nest's
 * route-argument metadata and design:paramtypes): a @Body() class is the body's schema; a
 * @Query() class gives one parameter per validated property. A route without @Body() takes none.
 */
function describeInput(operation: Operation, { controller, name }: RouteHandler, dtos: DtoComponents, operationId: string): void {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, { index: number; data?: unknown }>;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, name) ?? []) as unknown[];
  let body: SchemaObject | ReferenceObject | undefined;
  let bodyRequired = false;
  for (const [key, arg] of Object.entries(args)) {
    const kind = Number(key.split(':')[0]);
    const type = types[arg.index];
    if (kind === RouteParamtypes.BODY) {
      if (arg.data !== undefined) throw new Error(`openapi: ${controller.name}.${name} takes @Body(${JSON.stringify(arg.data)}): take the whole body as a DTO`);
      if (isValidatedDto(type)) {
        body = dtos.body(type, operationId);
        bodyRequired = (dtos.schemaOf(type).required ?? []).length > 0;
      } else if (typeof type === 'function' && type !== Object && type !== Array && PRIMITIVES.has(type)) {
        body = { type: (type as { name: string }).name.toLowerCase() as 'string' };
      } else if (typeof type === 'function' && !PRIMITIVES.has(type)) {
        // a class without a single validation rule: the pipe refuses every field, the body can only be {}
        body = dtos.body(type as Type, operationId);
      } else {
        body = { type: 'object', description: 'Not validated by a DTO: see the description of the operation.' };
      }
    } else if (kind === RouteParamtypes.QUERY && arg.data === undefined && isValidatedDto(type)) {
      const schema = dtos.schemaOf(type);
      const names = Object.keys(schema.properties ?? {});
      const own: ParameterObject[] = names.map((property) => {
        const s = { ...(schema.properties![property] as SchemaObject) };
        const description = s.description;
        delete s.description;
        return { name: property, in: 'query', required: (schema.required ?? []).includes(property), schema: s, ...(description ? { description } : {}) };
      });
      operation.parameters = [...(operation.parameters ?? []).filter((p) => !('in' in p && p.in === 'query' && names.includes(p.name))), ...own];
    }
  }
  if (body) operation.requestBody = { required: bodyRequired, content: { 'application/json': { schema: body } } };
  else delete operation.requestBody;
  operation.parameters = operation.parameters?.map((p) => ('in' in p && p.in === 'query' ? queryParameter(p) : p));
}

/**
 * A query parameter as the wire has it: a string unless said otherwise; the page size of every
 * list (libs/http pageRequest) an integer from 1 to 100; `name[key]` a map of string values
 * sent as `name[<key>]=<value>` (deepObject).
 */
function queryParameter(parameter: ParameterObject): ParameterObject {
  const map = /^([A-Za-z_][A-Za-z0-9_]*)\[key\]$/.exec(parameter.name);
  if (map) return { ...parameter, name: map[1], style: 'deepObject', explode: true, schema: { type: 'object', additionalProperties: { type: 'string' } } };
  if (parameter.name === 'limit') return { ...parameter, schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } };
  if (!parameter.schema || Object.keys(parameter.schema).length === 0) return { ...parameter, schema: { type: 'string' } };
  return parameter;
}

/** `<Name>List` components for every list the routes refer to: the list envelope with `data` of <Name>. */
function addLists(document: OpenAPIObject): void {
  const schemas = document.components!.schemas!;
  for (const target of referencesIn(document)) {
    const name = target.slice(COMPONENT_PREFIX.length);
    if (schemas[name] || !name.endsWith('List')) continue;
    const item = name.slice(0, -'List'.length);
    if (!schemas[item]) continue;
    schemas[name] = {
      description: `A page of ${item} objects (the list envelope).`,
      allOf: [
        { $ref: `${COMPONENT_PREFIX}${LIST_ENVELOPE}` },
        { type: 'object', required: ['data'], properties: { data: { type: 'array', items: { $ref: `${COMPONENT_PREFIX}${item}` } } } },
      ],
    };
  }
}

function referencesIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) referencesIn(v, found);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') found.add(v);
      else referencesIn(v, found);
    }
  }
  return found;
}

/** Every $ref names something the document has (a dangling one breaks every client generator). */
function checkReferences(document: OpenAPIObject): void {
  for (const target of referencesIn(document)) {
    const parts = target.replace(/^#\//, '').split('/');
    let at: unknown = document;
    for (const part of parts) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    if (at === undefined) throw new Error(`openapi: ${target} is referenced but not defined`);
  }
}

/** Each controller method that is a route, by the operation id @nestjs/swagger gives it. */
interface RouteHandler {
  controller: Type;
  name: string;
  handler: Handler;
  /** The handler names its operation itself (@ApiOperation({operationId})). */
  customId: boolean;
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
        found.set(id, { controller, name, handler: handler as Handler, customId: Boolean(custom) });
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
  // a handler that takes the whole query string reads it itself (limit, cursor, filters) and refuses what it cannot read
  const checked = Object.entries(args).some(
    ([key, arg]) =>
      validated.includes(key.split(':')[0]) &&
      ((arg.pipes?.length ?? 0) > 0 || !PRIMITIVES.has(types[arg.index]) || (key.split(':')[0] === String(RouteParamtypes.QUERY) && (arg as { data?: unknown }).data === undefined)),
  );
  const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
  return {
    method: requestMethod === undefined ? method : RequestMethod[requestMethod] === 'ALL' ? method : RequestMethod[requestMethod],
    guarded: true,
    isPublic: meta<boolean>(PUBLIC_ROUTE) === true,
    permission: meta(PERMISSION),
    liveMode: meta<boolean>(LIVE_MODE_ACTION) === true,
    dashboardOnly: meta<boolean>(DASHBOARD_ONLY) === true,
    accountRoute: meta<boolean>(ACCOUNT_ROUTE) === true,
    sameOrigin: meta<boolean>(SAME_ORIGIN) === true,
    idempotency: meta(IDEMPOTENCY),
    shownOnce: meta<boolean>(SHOWN_ONCE) === true,
    rateLimit: meta(RATE_LIMIT_RULE),
    challenge: meta(CHALLENGE_FORM),
    validatedInput: checked,
    explicit: reflector.getAllAndMerge<ErrorCode[]>(API_ERRORS, targets) ?? [],
    explicitWhen: (Reflect.getMetadata(API_ERROR_WHEN, handler) as Partial<Record<ErrorCode, string>> | undefined) ?? {},
  };
}

const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Object, Array, undefined]);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']); // Fastify parses a body on these

/** When a code a route lists itself (@ApiErrors) answers, for codes that mean the same on every route. */
const EXPLICIT_WHEN: Partial<Record<ErrorCode, string>> = {
  upstream_unavailable: 'a service this route depends on cannot be reached (such as the exchange-rate source); nothing changed; retry with the same Idempotency-Key',
  email_unavailable: 'the deployment cannot send the e-mail this request needs now (its SMTP server unreachable or refusing, or no e-mail configured); retry later',
};

/**
 * Whether a public route takes a dashboard session sent anyway (the cookie with Service-Business,
 * AuthGuard.sendsSession): every guarded one but the forms that give a session (@SameOriginOnly).
 */
const publicTakesSession = (facts: RouteFacts): boolean => facts.isPublic && facts.guarded && !facts.sameOrigin;

/** The error codes a route can answer with, each with when (in order of the checks). */
export function routeErrors(facts: RouteFacts): Map<ErrorCode, string> {
  const errors = new Map<ErrorCode, string>();
  const add = (code: ErrorCode, when: string) => {
    const earlier = errors.get(code);
    errors.set(code, earlier ? [earlier, when].filter(Boolean).join('; or ') : when);
  };
  // a public route takes credentials sent anyway: an API key, and — but on the forms that give a session — a session with Service-Business
  const takesSession = publicTakesSession(facts);
  const keySent = facts.isPublic ? ' (only when an API key is sent anyway)' : '';
  const credentialsSent = takesSession ? ' (only when an API key, or a dashboard session cookie with the Service-Business header, is sent anyway)' : keySent;
  const takesBody = BODY_METHODS.has(facts.method);
  const idempotent = facts.method === 'POST' && facts.idempotency !== 'ignored';

  add('edge_forbidden', 'the request did not come through the API’s own address');
  if (takesBody) {
    add('invalid_json', 'the body is not valid JSON or not UTF-8');
    add('payload_too_large', 'the body is larger than 1 MiB');
    add('unsupported_media_type', 'a body was sent without Content-Type: application/json');
  }
  if (facts.guarded) {
    if (!facts.isPublic) add('unauthenticated', facts.accountRoute ? 'no dashboard session cookie was sent, or the session ended or expired' : 'no API key or dashboard session was sent, or the session ended or expired');
    if (takesSession) add('unauthenticated', 'a dashboard session cookie was sent with the Service-Business header, but the session ended or expired');
    add('invalid_api_key', `the key is invalid or revoked${facts.isPublic ? '' : ', a publishable key'}, or the Authorization header is not "Bearer <key>"${keySent}`);
    if (facts.dashboardOnly || facts.accountRoute) add('session_required', 'this route is for dashboard sessions only; API keys are refused');
    if (!facts.isPublic || facts.sameOrigin) add('cross_site_request', 'a browser request with the dashboard cookie (or asking for it) came from another site');
    if (takesSession) add('cross_site_request', 'a browser request with the dashboard cookie and the Service-Business header came from another site');
    if (!facts.isPublic && !facts.accountRoute) add('business_required', 'a dashboard session did not name the business in the Service-Business header');
    if (!facts.accountRoute) add('business_forbidden', `the Service-Business header names a business the caller cannot act for${credentialsSent}`);
    if (!facts.dashboardOnly && !facts.isPublic && !facts.accountRoute) {
      const lacks = facts.permission ? `the restricted key lacks ${describePermission(facts.permission)}` : 'restricted keys cannot use this route';
      add('permission_denied', `${lacks}${keySent}`);
    }
    if (facts.liveMode) add('test_mode_unavailable', `a test key cannot do this on a live business${keySent}`);
    if (facts.rateLimit) {
      const rule = RATE_LIMITS.find((r) => r.name === facts.rateLimit);
      const successful = rule?.counts === 'successful';
      const budget = rule
        ? `more than ${rule.points} ${successful ? 'successful ' : ''}requests per ${duration(rule.durationSec)} per ${rule.per === 'ip' ? 'IP address' : 'business'}${successful ? ' (errors and replays are not counted)' : ''}`
        : 'too many requests';
      add('rate_limited', `${budget}; wait Retry-After seconds`);
    }
  }
  if (facts.challenge) add('challenge_failed', `the Service-Challenge header holds no passed bot-challenge token for the ${facts.challenge} form: missing, refused, already used or from another form`);
  if (facts.idempotency === 'required' && facts.method === 'POST') add('idempotency_key_required', 'no Idempotency-Key header was sent');
  if (idempotent) add('invalid_request', 'Idempotency-Key is not 1 to 255 characters');
  if (takesBody || facts.validatedInput) add('invalid_request', 'a field is missing, unknown or invalid; `field` names it');
  if (idempotent) {
    add('idempotency_key_reused', 'the Idempotency-Key was used for a different method, path or body');
    add('idempotency_key_in_use', 'the first request with this Idempotency-Key is still running; retry after Retry-After seconds (the key of a request whose server died stays locked up to 60 s)');
  }
  for (const code of facts.explicit) add(code, EXPLICIT_WHEN[code] ?? '');
  for (const [code, when] of Object.entries(facts.explicitWhen ?? {}) as [ErrorCode, string][]) add(code, when);
  add('not_found', 'nothing with that ID for the business, or no such path');
  add('internal_error', `failure on the service’s side${idempotent ? '; retry with the same Idempotency-Key' : ''}`);
  // any route while the server shuts down, and a route whose dependency is paused
  add('temporarily_unavailable', `the service is shutting down or has paused something this route needs; retry later${idempotent ? ' with the same Idempotency-Key' : ''}`);
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
  if (facts.isPublic) {
    const sentAnyway = publicTakesSession(facts) ? 'a key, or a dashboard session cookie with the Service-Business header, sent anyway must be valid' : 'a key sent anyway must be valid';
    notes.push(`Public: no credentials needed (${sentAnyway}).`);
  }
  if (facts.dashboardOnly || facts.accountRoute) notes.push('Dashboard sessions only: API keys get 403 session_required.');
  if (facts.accountRoute) notes.push('The signed-in person’s own route: no Service-Business header.');
  if (facts.permission) notes.push(`Restricted keys need ${describePermission(facts.permission)}.`);
  if (facts.liveMode) notes.push('A test key on a live business gets 403 test_mode_unavailable.');
  if (facts.method === 'POST' && facts.idempotency === 'ignored') notes.push('The Idempotency-Key is ignored: the response is never stored or replayed.');
  if (notes.length > 0) operation.description = [operation.description, ...notes].filter(Boolean).join('\n\n');
  operation['x-auth'] = facts.isPublic ? 'public' : facts.dashboardOnly || facts.accountRoute ? 'dashboard_session' : 'api_key';
  if (facts.permission) operation['x-permission'] = { resource: facts.permission.resource, access: facts.permission.access };
  if (facts.rateLimit) operation['x-rate-limit'] = facts.rateLimit;

  if (facts.challenge) {
    const header: ParameterObject = {
      name: CHALLENGE_HEADER,
      in: 'header',
      required: true,
      description: `A passed bot-challenge token for the ${facts.challenge} form (Cloudflare Turnstile: the widget's response, its action \`${facts.challenge}\`). Each token passes once.`,
      schema: { type: 'string', minLength: 1, maxLength: 2048 },
    };
    operation.parameters = [...(operation.parameters ?? []).filter((p) => !('name' in p && p.name.toLowerCase() === CHALLENGE_HEADER.toLowerCase())), header];
    operation['x-challenge'] = facts.challenge;
  }

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

  // success responses (from @nestjs/swagger) gain the request id (and the replay mark on POST, the no-store of a secret shown once)
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!/^2/.test(status) || !response || '$ref' in response) continue;
    if (!response.description) response.description = 'Success.';
    if (!response.content) {
      // the route declares no schema for its answer: JSON of a shape the document does not give (openapi.e2e lists such routes)
      response.content = { 'application/json': { schema: { description: 'Not described: the route declares no schema for this answer.' } } };
      (response as ResponseObject & { 'x-undescribed'?: boolean })['x-undescribed'] = true;
    }
    response.headers = { ...response.headers, 'Service-Request-Id': HEADER_REF('Service-Request-Id') };
    if (facts.method === 'POST' && facts.idempotency !== 'ignored') response.headers['Idempotent-Replayed'] = HEADER_REF('Idempotent-Replayed');
    if (facts.shownOnce) response.headers['Cache-Control'] = HEADER_REF('Cache-Control');
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
    // 429 rate_limited, 409 idempotency_key_in_use and the 503 of a closing server say when to retry
    if (codes.some(([code]) => code === 'rate_limited' || code === 'idempotency_key_in_use')) headers['Retry-After'] = HEADER_REF('Retry-After');
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
    'Cache-Control': { description: '`no-store`: the answer holds a secret shown this once; no browser or intermediary cache may keep it.', schema: { type: 'string', enum: ['no-store'] } },
  };
}
