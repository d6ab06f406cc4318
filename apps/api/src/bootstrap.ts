import { DynamicModule, ForwardReference, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '@lib/core';
import {
  ApiError,
  ApiExceptionFilter,
  BODY_LIMIT_BYTES,
  PinoNestLogger,
  REQUEST_ID_HEADER,
  RequestLogController,
  RouteTable,
  apiValidationPipe,
  clientErrorHandler,
  createLogger,
  newId,
  registerJsonBodyParser,
  sendApiError,
  urlTextRefusal,
} from '@lib/http';
import type { DestinationStream } from 'pino';
import { isPageRequest, sendPageNotFound } from '@lib/checkout-page';
import { AppModule } from './app.module';
import { setupApiReference } from './platform/api-reference';
import { OPENAPI_PATH, setupOpenApi } from './platform/openapi';
import { refundUnsuccessfulRequests } from './platform/rate-limit.guard';
import { setupSimulatedProcessor } from './platform/simulated-processor';

export const API_PREFIX = 'api/v1';

/** Retry-After of the 503 a closing server answers: another replica (or this one restarted) takes the retry. */
export const CLOSING_RETRY_AFTER_SEC = 1;

export interface ApiAppOptions {
  /** Where JSON log lines go (default stdout); tests capture them here. */
  logDestination?: DestinationStream;
  /** Override LOG_LEVEL (tests use 'silent'). */
  logLevel?: string;
  /** Extra modules (tests mount probe routes this way). */
  imports?: (Type | DynamicModule | ForwardReference)[];
}

/**
 * Builds the HTTP app on Fastify (docs/decisions/0005): the JSON body parser, request ids,
 * the edge check, the error filter and DTO validation, around the application's modules.
 * Everything answers under /api/v1 (JSON only), except the API reference page at /docs and the
 * hosted checkout page at the path of CHECKOUT_BASE_URL (libs/checkout-page, decision 0027);
 * simulated card processors' secure pages at /simulated-processor.
 */
export async function createApiApp(config: AppConfig, options: ApiAppOptions = {}): Promise<NestFastifyApplication> {
  const logger = createLogger(options.logLevel ?? config.logLevel, options.logDestination);
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    logController: new RequestLogController(),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    genReqId: () => newId('req'),
    requestIdHeader: false, // never take a request id from the client
    // a closing server's 503 is ours (below): Fastify's own has no §7 envelope and no Retry-After (operator audit 2026-11-29, F4)
    return503OnClosing: false,
    // errors Fastify raises before routing (a malformed path) get the §7 envelope too
    frameworkErrors: (error: { code?: string }, request: FastifyRequest, reply: FastifyReply) => {
      // a page's address cut or garbled (a mail client ends it after a `%`): the page's HTML 404, not the API's JSON (audit L6, 2026-11-30)
      if (isPageRequest(config, request.url, request.headers.accept)) {
        void sendPageNotFound(config, reply);
        return;
      }
      const known =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ApiError('not_found', 'Nothing with that id for this business.')
          : new ApiError('invalid_request', 'The URL is malformed (bad percent-encoding).', 'path');
      sendApiError(reply, request.id, known);
    },
    // and so do requests Node's parser refuses before Fastify sees them (headers over 16 KiB)
    clientErrorHandler,
  });
  const fastify = adapter.getInstance();
  const routes = new RouteTable();
  routes.attach(fastify);
  registerJsonBodyParser(fastify);
  const edge = edgeCheck(config);
  // graceful stop: a request that still reaches this server once it closes (a keep-alive or
  // pipelined connection) is answered 503 temporarily_unavailable with Retry-After, runs nothing,
  // and its connection is closed (Fastify sets Connection: close), so a retry goes elsewhere
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    if (closing) {
      throw new ApiError('temporarily_unavailable', 'The server is shutting down; retry the request (with the same Idempotency-Key).', null, {
        'retry-after': String(CLOSING_RETRY_AFTER_SEC),
      });
    }
  });
  fastify.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    if (!edge(request)) throw new ApiError('edge_forbidden', 'Requests must come through the API’s own address.');
  });
  // null characters or lone surrogates in the URL, or a query that is not UTF-8 once percent-decoded: the body's rule (§7 invalid_request), before any route reads them
  // (on a page's address: the page's HTML 404, audit L6, 2026-11-30)
  fastify.addHook('preValidation', async (request, reply) => {
    const refusal = urlTextRefusal(request.params, request.query, request.url);
    if (refusal && isPageRequest(config, request.url, request.headers.accept)) return sendPageNotFound(config, reply);
    if (refusal) throw refusal;
  });
  // a rate limit that counts only successful requests gets back the points of the others (§8: webhook test events and resends)
  refundUnsuccessfulRequests(fastify);

  // the service's own logger from the first line (a failure while modules start is a JSON line
  // too), and such a failure is thrown to the caller (main prints what to change) rather than
  // Nest ending the process itself
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, options.imports ?? []), adapter, {
    bodyParser: false,
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  app.setGlobalPrefix(API_PREFIX);
  app.useGlobalFilters(new ApiExceptionFilter(routes, `/${API_PREFIX}`));
  app.useGlobalPipes(apiValidationPipe());
  setupOpenApi(app, config, API_PREFIX);
  setupApiReference(app, config, `/${API_PREFIX}/${OPENAPI_PATH}`); // GET /docs, outside /api/v1: the one HTML page
  setupSimulatedProcessor(app); // the simulated card processors' secure pages, outside /api/v1 (decision 0026)
  app.enableShutdownHooks();
  return app;
}

/**
 * §5.8: a request must arrive through the API's own address: the host of API_BASE_URL, or,
 * by default and always, the server's loopback address on the port it listens on (so
 * `npm start` works locally).
 */
function edgeCheck(config: AppConfig): (request: FastifyRequest) => boolean {
  const loopback = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
  const publicUrl = config.apiBaseUrl ? new URL(config.apiBaseUrl) : null;
  const publicPort = publicUrl ? publicUrl.port || (publicUrl.protocol === 'https:' ? '443' : '80') : null;
  return (request) => {
    const hostHeader = request.host; // X-Forwarded-Host only from trusted proxies
    if (!hostHeader) return false;
    const parsed = parseHost(hostHeader);
    if (!parsed) return false;
    // the public host; its port only when the Host header names one (a TLS proxy in front may not)
    if (publicUrl && parsed.hostname === publicUrl.hostname.toLowerCase() && (parsed.port === null || parsed.port === publicPort)) return true;
    const localPort = String(request.socket.localPort ?? '');
    return loopback.has(parsed.hostname) && (parsed.port ?? defaultPort(request)) === localPort;
  };
}

function parseHost(host: string): { hostname: string; port: string | null } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:\s/]+)(?::(\d{1,5}))?$/.exec(host.trim());
  if (!match) return null;
  return { hostname: match[1].toLowerCase(), port: match[2] ?? null };
}

function defaultPort(request: FastifyRequest): string {
  return request.protocol === 'https' ? '443' : '80';
}
