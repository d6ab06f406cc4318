/**
 * HTTP adapter benchmark (docs/decisions/0005): the same minimal NestJS app on Express and on
 * Fastify, loaded with autocannon in the same run, then a self-check of how each adapter
 * implements the API's HTTP rules (405, 415, 413, invalid UTF-8 vs invalid JSON).
 *
 *   node -r @swc-node/register bench/http-adapters.bench.ts
 *
 * Routes (global prefix `api/v1`, logger off, 127.0.0.1, ephemeral port):
 *   bare         GET  /bare/ping     returns {data: {kind: 'ping'}}, no enhancers
 *   guarded      GET  /guarded/ping  guard (Authorization header + Map lookup), interceptor
 *                                    (sets Service-Request-Id), pipe (parses ?limit), on
 *                                    the controller: Nest merges global, controller and method
 *                                    enhancers into one list at start-up, so the per-request
 *                                    work is that of global ones, and `bare` stays bare
 *   post         POST /echo         ~1 KB JSON body through the adapter's default JSON parser
 *   post-strict  POST /echo         same body through our strict parser (raw buffer, fatal
 *                                    UTF-8 decode, JSON.parse), as the API rules need; this
 *                                    app also answers 405 for known paths
 *
 * Environment:
 *   BENCH_SECONDS          measured seconds per cell (default 5)
 *   BENCH_WARMUP_SECONDS   warm-up seconds per cell, not counted (default 1)
 *   BENCH_CONNECTIONS      autocannon connections (default 32)
 *   BENCH_LOADGEN          where autocannon runs for the main table: worker | child | inline
 *                          (default worker: its own thread, so on 2 cores the server's event
 *                          loop has one core to itself)
 *   BENCH_COMPARE_LOADGEN  0 skips the `bare` cells with the two other load generator
 *                          placements (default 1)
 *   BENCH_CHECKS           0 skips the API-rule self-check (default 1)
 *   BENCH_JSON_OUT         a path to write the raw results to as JSON (default: none)
 *
 * Latency percentiles come from every response's own hrtime duration (autocannon's histogram
 * rounds to whole milliseconds); req/s = completed 2xx requests / measured seconds. A cell
 * with a non-2xx response or socket error fails the run.
 */
import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import {
  ArgumentMetadata,
  ArgumentsHost,
  BadRequestException,
  Body,
  CallHandler,
  CanActivate,
  Catch,
  Controller,
  ExceptionFilter,
  ExecutionContext,
  Get,
  HttpCode,
  INestApplication,
  Injectable,
  Module,
  NestInterceptor,
  NotFoundException,
  Param,
  PipeTransform,
  Post,
  Query,
  UnauthorizedException,
  UnsupportedMediaTypeException,
  UseGuards,
  UseInterceptors,
  UsePipes,
  createParamDecorator,
} from '@nestjs/common';
import { AbstractHttpAdapter, HttpAdapterHost, NestFactory } from '@nestjs/core';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest, HTTPMethods } from 'fastify';
import type { Observable } from 'rxjs';

type AdapterName = 'express' | 'fastify';
type RouteName = 'bare' | 'guarded' | 'post' | 'post-strict';
type LoadgenMode = 'worker' | 'child' | 'inline';

const ADAPTERS: AdapterName[] = ['express', 'fastify'];
const ROUTES: RouteName[] = ['bare', 'guarded', 'post', 'post-strict'];
const PREFIX = 'api/v1';
const BODY_LIMIT = 1024 * 1024;
const API_KEY = 'key_live_7Hq2LrX9aPz3';

function numberEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}

// ---------------------------------------------------------------------------------------------
// The bench app: per-request work shaped like ours.

interface Principal {
  merchantId: string;
  keyId: string;
  scopes: readonly string[];
}

interface RequestWithPrincipal {
  headers: IncomingHttpHeaders;
  principal?: Principal;
}

const KEYS = new Map<string, Principal>([
  [API_KEY, { merchantId: 'mch_7Hq2LrX9aP', keyId: 'key_2b9f1c', scopes: ['payments:read', 'payments:write'] }],
  ['key_live_other', { merchantId: 'mch_other', keyId: 'key_other', scopes: ['payments:read'] }],
]);

@Injectable()
class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    const header = request.headers.authorization;
    if (!header || !header.startsWith('Bearer ')) throw new UnauthorizedException();
    const principal = KEYS.get(header.slice(7));
    if (!principal) throw new UnauthorizedException();
    request.principal = principal;
    return true;
  }
}

/** Sets the response header through Nest's adapter-neutral `HttpAdapterHost`. */
@Injectable()
class RequestIdInterceptor implements NestInterceptor {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const response: unknown = context.switchToHttp().getResponse();
    this.adapterHost.httpAdapter.setHeader(response, 'Service-Request-Id', `req_${randomUUID()}`);
    return next.handle();
  }
}

/** `?limit`: a number from 1 to 100, 20 when absent. Other parameters pass through. */
@Injectable()
class LimitPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'query' || metadata.data !== 'limit') return value;
    if (value === undefined) return 20;
    const parsed = Number.parseInt(String(value), 10);
    if (!Number.isFinite(parsed)) throw new BadRequestException('limit must be a number');
    return Math.min(100, Math.max(1, parsed));
  }
}

const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  return context.switchToHttp().getRequest<RequestWithPrincipal>().principal;
});

@Controller('bare')
class BareController {
  @Get('ping')
  ping(): unknown {
    return { data: { kind: 'ping' } };
  }
}

@Controller('guarded')
@UseGuards(ApiKeyGuard)
@UseInterceptors(RequestIdInterceptor)
@UsePipes(LimitPipe)
class GuardedController {
  @Get('ping')
  ping(@CurrentPrincipal() principal: Principal, @Query('limit') limit: number): unknown {
    return { data: { kind: 'ping', merchantId: principal.merchantId, limit } };
  }
}

interface EchoBody {
  data?: { reference?: unknown };
}

@Controller('echo')
class EchoController {
  @Post()
  @HttpCode(200)
  echo(@Body() body: EchoBody | undefined): unknown {
    return { data: { kind: 'echo', reference: body?.data?.reference ?? null } };
  }
}

/** Only in the rules app: a parametric path with GET and POST, for the 405 checks. */
@Controller('payments')
class PaymentsController {
  @Get(':id')
  get(@Param('id') id: string): unknown {
    if (id === 'missing') throw new NotFoundException(`Payment ${id} not found`);
    return { data: { kind: 'payment', id } };
  }

  @Post()
  @HttpCode(200)
  create(@Body() body: EchoBody | undefined): unknown {
    return { data: { kind: 'payment', reference: body?.data?.reference ?? null } };
  }
}

@Module({ controllers: [BareController, GuardedController, EchoController] })
class BenchModule {}

@Module({ controllers: [EchoController, PaymentsController] })
class RulesModule {}

// ---------------------------------------------------------------------------------------------
// The API rules, per adapter: strict JSON body (415 / 413 / invalid UTF-8 vs invalid JSON) and
// 405 with an empty body when the path exists for other methods.

const utf8 = new TextDecoder('utf-8', { fatal: true });
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** `application/json`, with no charset or charset=utf-8. */
function isUtf8Json(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [essence, ...params] = contentType.split(';');
  if (essence.trim().toLowerCase() !== 'application/json') return false;
  for (const param of params) {
    const [name, value = ''] = param.split('=');
    if (name.trim().toLowerCase() === 'charset' && value.trim().replace(/^"|"$/g, '').toLowerCase() !== 'utf-8') return false;
  }
  return true;
}

function parseStrictJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new BadRequestException({ error: { code: 'invalid_utf8', message: 'The body is not valid UTF-8.' } });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequestException({ error: { code: 'invalid_json', message: `The body is not valid JSON: ${(error as Error).message}` } });
  }
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

/** Express 5 request, as far as we use it (no @types/express here). */
interface ExpressRequest {
  headers: IncomingHttpHeaders;
  path: string;
  body?: unknown;
  app: { router: { stack: ExpressLayer[] } };
}
interface ExpressLayer {
  route?: { methods: Record<string, boolean | undefined> };
  match(path: string): boolean;
}
type Next = (error?: unknown) => void;

/**
 * Express has no route lookup API. `app.router` is public in Express 5, but its `stack`, each
 * layer's `match()` and `route.methods` are internals of the `router` package.
 */
function expressAllowedMethods(request: unknown): string[] {
  const req = request as ExpressRequest;
  const allowed = new Set<string>();
  for (const layer of req.app.router.stack) {
    if (!layer.route || !layer.match(req.path)) continue;
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (!on) continue;
      if (method === '_all') HTTP_METHODS.forEach((m) => allowed.add(m));
      else allowed.add(method.toUpperCase());
    }
  }
  if (allowed.has('GET')) allowed.add('HEAD');
  return HTTP_METHODS.filter((m) => allowed.has(m));
}

/** Fastify 5: `findRoute` looks up a request URL (parameters, query string) in the real router. */
function fastifyAllowedMethods(request: unknown): string[] {
  const req = request as FastifyRequest;
  return HTTP_METHODS.filter((method) => req.server.findRoute({ method: method as HTTPMethods, url: req.url }) !== null);
}

@Catch(NotFoundException)
class MethodNotAllowedFilter implements ExceptionFilter {
  constructor(
    private readonly adapter: AbstractHttpAdapter,
    private readonly allowedMethods: (request: unknown) => string[],
  ) {}

  catch(exception: NotFoundException, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request: unknown = http.getRequest();
    const response: unknown = http.getResponse();
    const method = this.adapter.getRequestMethod(request);
    const allowed = this.allowedMethods(request);
    if (allowed.length > 0 && !allowed.includes(method)) {
      this.adapter.setHeader(response, 'Allow', allowed.join(', '));
      // reply(), not end(): on Fastify, end() writes to reply.raw and drops reply.header()s.
      this.adapter.reply(response, undefined, 405);
      return;
    }
    this.adapter.reply(response, exception.getResponse(), exception.getStatus());
  }
}

async function createApp(adapter: AdapterName, kind: 'bench' | 'rules'): Promise<INestApplication> {
  const module = kind === 'bench' ? BenchModule : RulesModule;
  const strict = kind === 'rules';
  if (adapter === 'express') {
    const app = await NestFactory.create<NestExpressApplication>(module, new ExpressAdapter(), { logger: false, bodyParser: !strict });
    if (strict) {
      app.use((req: ExpressRequest, _res: unknown, next: Next) => {
        if (hasBody(req.headers) && !isUtf8Json(req.headers['content-type'])) next(new UnsupportedMediaTypeException());
        else next();
      });
      app.useBodyParser('raw', { type: 'application/json', limit: BODY_LIMIT });
      app.use((req: ExpressRequest, _res: unknown, next: Next) => {
        if (!Buffer.isBuffer(req.body)) return next();
        try {
          req.body = parseStrictJson(req.body);
          next();
        } catch (error) {
          next(error);
        }
      });
      app.useGlobalFilters(new MethodNotAllowedFilter(app.getHttpAdapter() as AbstractHttpAdapter, expressAllowedMethods));
    }
    app.setGlobalPrefix(PREFIX);
    return app;
  }
  const app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter({ bodyLimit: BODY_LIMIT }), {
    logger: false,
    bodyParser: !strict,
  });
  if (strict) {
    const fastify = app.getHttpAdapter().getInstance();
    fastify.removeAllContentTypeParsers(); // no parser for a type = 415 from Fastify itself
    fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (req, body, done) => {
      if (!isUtf8Json(req.headers['content-type'])) return done(new UnsupportedMediaTypeException(), undefined);
      try {
        done(null, parseStrictJson(body as Buffer));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
    app.useGlobalFilters(new MethodNotAllowedFilter(app.getHttpAdapter() as unknown as AbstractHttpAdapter, fastifyAllowedMethods));
  }
  app.setGlobalPrefix(PREFIX);
  return app;
}

async function listen(app: INestApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  const address = (app.getHttpServer() as { address(): AddressInfo }).address();
  return `http://127.0.0.1:${address.port}`;
}

// ---------------------------------------------------------------------------------------------
// Load generation: autocannon's programmatic API, inline or in a worker thread / child process.

interface LoadJob {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** autocannon's own figures (whole-millisecond histogram), for reference */
  autocannon: { rpsAverage: number; p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

interface AutocannonOptions {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  pipelining: number;
  duration: number;
}
interface AutocannonResult {
  duration: number;
  requests: { average: number; total: number };
  latency?: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '2xx': number;
}
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): void;
}
/**
 * Inside a worker thread autocannon takes itself for one of its own workers and returns the raw
 * result (encoded histograms, no percentiles); `aggregateResult` turns that into the usual one.
 */
type Autocannon = ((options: AutocannonOptions) => AutocannonInstance) & {
  aggregateResult(results: AutocannonResult[], options: AutocannonOptions): AutocannonResult;
};

async function runLoad(job: LoadJob): Promise<LoadResult> {
  const autocannon = createRequire(__filename)('autocannon') as Autocannon;
  const base = { url: job.url, method: job.method, headers: job.headers, body: job.body, connections: job.connections, pipelining: 1 };
  if (job.warmupSeconds > 0) await autocannon({ ...base, duration: job.warmupSeconds });
  const latencies: number[] = [];
  const options = { ...base, duration: job.seconds };
  const instance = autocannon(options);
  instance.on('response', (_client, statusCode, _bytes, ms) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
  });
  const raw = await instance;
  const result = raw.latency ? raw : autocannon.aggregateResult([raw], options);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] : NaN);
  return {
    requests: result['2xx'],
    seconds: result.duration,
    rps: result['2xx'] / result.duration,
    p50: at(0.5),
    p99: at(0.99),
    autocannon: { rpsAverage: result.requests.average, p50: result.latency?.p50 ?? NaN, p99: result.latency?.p99 ?? NaN },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

interface LoadGenerator {
  mode: LoadgenMode;
  run(job: LoadJob): Promise<LoadResult>;
  close(): Promise<void>;
}

type LoadReply = { id: number; result?: LoadResult; error?: string };

function messageLoadGenerator(
  mode: LoadgenMode,
  send: (message: { id: number; job: LoadJob }) => void,
  subscribe: (listener: (reply: LoadReply) => void) => void,
  close: () => Promise<void>,
): LoadGenerator {
  let nextId = 1;
  const pending = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();
  subscribe((reply) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error !== undefined || !reply.result) waiter?.reject(new Error(reply.error ?? 'no result'));
    else waiter?.resolve(reply.result);
  });
  return {
    mode,
    run: (job) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        send({ id, job });
      }),
    close,
  };
}

function startLoadGenerator(mode: LoadgenMode): LoadGenerator {
  if (mode === 'inline') return { mode, run: runLoad, close: async () => undefined };
  if (mode === 'worker') {
    // The worker inherits `-r @swc-node/register` and loads this file in the `loadgen` role.
    const worker = new Worker(__filename, { workerData: { role: 'loadgen' } });
    return messageLoadGenerator(
      mode,
      (message) => worker.postMessage(message),
      (listener) => worker.on('message', listener),
      async () => void (await worker.terminate()),
    );
  }
  const child: ChildProcess = spawn(process.execPath, [...process.execArgv, __filename, '--loadgen'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return messageLoadGenerator(
    mode,
    (message) => child.send(message),
    (listener) => child.on('message', (m) => listener(m as LoadReply)),
    async () => {
      child.disconnect();
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    },
  );
}

function serveLoadgen(post: (reply: LoadReply) => void, subscribe: (listener: (m: { id: number; job: LoadJob }) => void) => void): void {
  subscribe(({ id, job }) => {
    runLoad(job).then(
      (result) => post({ id, result }),
      (error: unknown) => post({ id, error: String(error) }),
    );
  });
}

// ---------------------------------------------------------------------------------------------
// The bench.

const ECHO_BODY = makeEchoBody();

function makeEchoBody(): string {
  const body = {
    data: {
      kind: 'checkout',
      reference: 'ord_A-10293',
      amount: { currency: 'EUR', minor: 129_900 },
      customer: { email: 'ada@example.com', country: 'DE' },
      items: [] as { sku: string; name: string; quantity: number; minor: number }[],
      metadata: { channel: 'web', campaign: 'winter-2026', cartId: 'cart_5d1f0a9e7c' },
    },
  };
  for (let i = 0; JSON.stringify(body).length < 1000; i++) {
    body.data.items.push({ sku: `SKU-${1000 + i}`, name: `Item number ${i} (blue, size M)`, quantity: 1 + (i % 3), minor: 19_900 + i });
  }
  return JSON.stringify(body);
}

function jobFor(route: RouteName, base: string, connections: number, warmupSeconds: number, seconds: number): LoadJob {
  const common = { connections, warmupSeconds, seconds };
  switch (route) {
    case 'bare':
      return { ...common, url: `${base}/${PREFIX}/bare/ping`, method: 'GET', headers: {} };
    case 'guarded':
      return { ...common, url: `${base}/${PREFIX}/guarded/ping?limit=50`, method: 'GET', headers: { authorization: `Bearer ${API_KEY}` } };
    case 'post':
    case 'post-strict':
      return { ...common, url: `${base}/${PREFIX}/echo`, method: 'POST', headers: { 'content-type': 'application/json' }, body: ECHO_BODY };
  }
}

interface Cell {
  adapter: AdapterName;
  route: RouteName;
  loadgen: LoadgenMode;
  result: LoadResult;
}

async function main(): Promise<void> {
  const seconds = numberEnv('BENCH_SECONDS', 5);
  const warmupSeconds = numberEnv('BENCH_WARMUP_SECONDS', 1);
  const connections = Math.max(1, Math.round(numberEnv('BENCH_CONNECTIONS', 32)));
  const mainMode = (['worker', 'child', 'inline'] as const).find((m) => m === process.env.BENCH_LOADGEN) ?? 'worker';
  const compare = process.env.BENCH_COMPARE_LOADGEN !== '0';
  const checks = process.env.BENCH_CHECKS !== '0';
  const started = Date.now();

  const versions = {
    node: process.version,
    nestCore: pkgVersion('@nestjs/core'),
    platformExpress: pkgVersion('@nestjs/platform-express'),
    platformFastify: pkgVersion('@nestjs/platform-fastify'),
    express: pkgVersion('express'),
    fastify: pkgVersion('fastify'),
    autocannon: pkgVersion('autocannon'),
  };
  console.log(
    `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${versions.node}; ` +
      `express ${versions.express} / fastify ${versions.fastify} (platform ${versions.platformExpress} / ${versions.platformFastify}), autocannon ${versions.autocannon}`,
  );
  console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (other processes share these cores)`);
  console.log(`${connections} connections, ${warmupSeconds} s warm-up + ${seconds} s per cell, load generator: ${mainMode}; POST body ${Buffer.byteLength(ECHO_BODY)} B\n`);

  const apps: INestApplication[] = [];
  const bases = {} as Record<AdapterName, { bench: string; rules: string }>;
  for (const adapter of ADAPTERS) {
    const bench = await createApp(adapter, 'bench');
    const rules = await createApp(adapter, 'rules');
    apps.push(bench, rules);
    bases[adapter] = { bench: await listen(bench), rules: await listen(rules) };
  }

  let failed = false;
  let checkRows: CheckRow[] = [];
  if (checks) {
    checkRows = await selfCheck(bases);
    failed = checkRows.some((row) => !row.pass);
  }

  const cells: Cell[] = [];
  const measure = async (loadgen: LoadGenerator, route: RouteName, adapter: AdapterName) => {
    const base = route === 'post-strict' ? bases[adapter].rules : bases[adapter].bench;
    const result = await loadgen.run(jobFor(route, base, connections, warmupSeconds, seconds));
    if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
      throw new Error(`${adapter} ${route}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
    }
    cells.push({ adapter, route, loadgen: loadgen.mode, result });
    process.stdout.write(`  ${loadgen.mode.padEnd(6)} ${adapter.padEnd(7)} ${route.padEnd(11)} ${fmtInt(result.rps).padStart(7)} req/s\n`);
  };
  /** Alternate which adapter goes first, so drift on a shared machine hits both alike. */
  const order = (i: number): AdapterName[] => (i % 2 === 0 ? ['express', 'fastify'] : ['fastify', 'express']);

  const loadgen = startLoadGenerator(mainMode);
  try {
    for (const [i, route] of ROUTES.entries()) for (const adapter of order(i)) await measure(loadgen, route, adapter);
  } finally {
    await loadgen.close();
  }
  const otherModes = (['worker', 'inline', 'child'] as const).filter((m) => m !== mainMode);
  if (compare) {
    for (const [i, mode] of otherModes.entries()) {
      const other = startLoadGenerator(mode);
      try {
        for (const adapter of order(i + 1)) await measure(other, 'bare', adapter);
      } finally {
        await other.close();
      }
    }
  }
  for (const app of apps) await app.close();

  console.log('');
  printTable(cells.filter((c) => c.loadgen === mainMode));
  if (compare) {
    console.log(`\nLoad generator placement, route bare (req/s; ratio = fastify / express):`);
    const modes: LoadgenMode[] = [mainMode, ...otherModes];
    const header = ['loadgen', 'express', 'fastify', 'ratio', 'express p99', 'fastify p99'];
    const rows = modes.map((mode) => {
      const e = cells.find((c) => c.loadgen === mode && c.route === 'bare' && c.adapter === 'express')?.result;
      const f = cells.find((c) => c.loadgen === mode && c.route === 'bare' && c.adapter === 'fastify')?.result;
      return [mode, e ? fmtInt(e.rps) : '-', f ? fmtInt(f.rps) : '-', e && f ? `${(f.rps / e.rps).toFixed(2)}×` : '-', e ? fmtMs(e.p99) : '-', f ? fmtMs(f.p99) : '-'];
    });
    printRows(header, rows);
  }
  if (checks) printChecks(checkRows);
  console.log(`\nTotal ${((Date.now() - started) / 1000).toFixed(1)} s; load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}.`);

  const out = process.env.BENCH_JSON_OUT;
  if (out) {
    writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), versions, seconds, warmupSeconds, connections, mainMode, cells, checks: checkRows }, null, 2));
    console.log(`Raw results: ${out}`);
  }
  if (failed) {
    console.error('Some API-rule checks failed (see above).');
    process.exitCode = 1;
  }
}

function printTable(cells: Cell[]): void {
  const header = ['adapter', 'route', 'req/s', 'p50 ms', 'p99 ms', 'fastify/express'];
  const rows: string[][] = [];
  for (const route of ROUTES) {
    const e = cells.find((c) => c.route === route && c.adapter === 'express')?.result;
    const f = cells.find((c) => c.route === route && c.adapter === 'fastify')?.result;
    for (const [adapter, r] of [['express', e], ['fastify', f]] as const) {
      if (!r) continue;
      const ratio = adapter === 'fastify' && e && f ? `${(f.rps / e.rps).toFixed(2)}×` : '';
      rows.push([adapter, route, fmtInt(r.rps), fmtMs(r.p50), fmtMs(r.p99), ratio]);
    }
  }
  printRows(header, rows);
}

function printRows(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const numeric = header.map((_h, i) => i > 0 && rows.every((r) => /^[-\d.,×]*$/.test(r[i])));
  const line = (cells: string[]) => cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const fmtMs = (n: number) => n.toFixed(2);

function pkgVersion(name: string): string {
  try {
    return (createRequire(__filename)(`${name}/package.json`) as { version: string }).version;
  } catch {
    return '?';
  }
}

// ---------------------------------------------------------------------------------------------
// Self-check: the API rules, implemented above on both adapters, observed over real HTTP.

interface CheckRow {
  adapter: AdapterName;
  check: string;
  expected: string;
  got: string;
  pass: boolean;
}

interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function send(base: string, method: string, path: string, options: { headers?: Record<string, string>; body?: Buffer; chunked?: boolean } = {}): Promise<HttpResult> {
  const url = new URL(path, base);
  const headers: Record<string, string> = { ...options.headers };
  if (options.body && !options.chunked) headers['content-length'] = String(options.body.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // A server may answer 413 and close before it has read everything we send.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    if (options.body && options.chunked) {
      for (let i = 0; i < options.body.length; i += 64 * 1024) req.write(options.body.subarray(i, i + 64 * 1024));
      req.end();
    } else req.end(options.body);
  });
}

function errorCode(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: string } };
    return parsed.error?.code ?? '';
  } catch {
    return '';
  }
}

function jsonOfSize(bytes: number): Buffer {
  const head = '{"data":{"reference":"ord_big","pad":"';
  const tail = '"}}';
  return Buffer.from(head + 'a'.repeat(bytes - head.length - tail.length) + tail);
}

async function selfCheck(bases: Record<AdapterName, { bench: string; rules: string }>): Promise<CheckRow[]> {
  const rows: CheckRow[] = [];
  const json = { 'content-type': 'application/json' };
  const p = `/${PREFIX}`;
  for (const adapter of ADAPTERS) {
    const { bench, rules } = bases[adapter];
    const check = async (name: string, expected: string, run: () => Promise<string>) => {
      let got: string;
      try {
        got = await run();
      } catch (error) {
        got = `threw ${String(error)}`;
      }
      rows.push({ adapter, check: name, expected, got, pass: got === expected });
    };
    const statusAndBody = (r: HttpResult) => `${r.status} body=${r.body.length === 0 ? 'empty' : 'non-empty'} allow=${r.headers.allow ?? '-'}`;
    const statusAndCode = (r: HttpResult) => `${r.status} ${errorCode(r.body) || '-'}`;

    // The bench app answers what the bench expects.
    await check('bench: GET bare', '200 {"data":{"kind":"ping"}}', async () => {
      const r = await send(bench, 'GET', `${p}/bare/ping`);
      return `${r.status} ${r.body}`;
    });
    await check('bench: GET guarded', '200 limit=50 request-id', async () => {
      const r = await send(bench, 'GET', `${p}/guarded/ping?limit=50`, { headers: { authorization: `Bearer ${API_KEY}` } });
      const body = JSON.parse(r.body) as { data: { limit: number } };
      return `${r.status} limit=${body.data.limit} ${typeof r.headers['service-request-id'] === 'string' ? 'request-id' : 'no-request-id'}`;
    });
    await check('bench: GET guarded, no key', '401', async () => String((await send(bench, 'GET', `${p}/guarded/ping`)).status));
    await check('bench: POST echo', '200 ord_A-10293', async () => {
      const r = await send(bench, 'POST', `${p}/echo`, { headers: json, body: Buffer.from(ECHO_BODY) });
      return `${r.status} ${(JSON.parse(r.body) as { data: { reference: string } }).data.reference}`;
    });

    // 405 with an empty body (and Allow) when the path exists for other methods.
    await check('405: DELETE /payments/pay_1', '405 body=empty allow=GET, HEAD', async () =>
      statusAndBody(await send(rules, 'DELETE', `${p}/payments/pay_1`)),
    );
    await check('405: DELETE /payments/pay_1?x=1', '405 body=empty allow=GET, HEAD', async () =>
      statusAndBody(await send(rules, 'DELETE', `${p}/payments/pay_1?x=1`)),
    );
    await check('405: PUT /payments', '405 body=empty allow=POST', async () => statusAndBody(await send(rules, 'PUT', `${p}/payments`)));
    await check('404: GET /nowhere', '404 body=non-empty allow=-', async () => statusAndBody(await send(rules, 'GET', `${p}/nowhere`)));
    await check('404 from handler: GET /payments/missing', '404 body=non-empty allow=-', async () =>
      statusAndBody(await send(rules, 'GET', `${p}/payments/missing`)),
    );
    await check('200: HEAD /payments/pay_1', '200', async () => String((await send(rules, 'HEAD', `${p}/payments/pay_1`)).status));

    // Strict JSON body.
    await check('200: POST valid JSON', '200', async () =>
      String((await send(rules, 'POST', `${p}/payments`, { headers: json, body: Buffer.from(ECHO_BODY) })).status),
    );
    await check('200: POST charset=utf-8', '200', async () =>
      String((await send(rules, 'POST', `${p}/payments`, { headers: { 'content-type': 'application/json; charset=UTF-8' }, body: Buffer.from('{}') })).status),
    );
    await check('415: text/plain', '415', async () =>
      String((await send(rules, 'POST', `${p}/payments`, { headers: { 'content-type': 'text/plain' }, body: Buffer.from('{}') })).status),
    );
    await check('415: form-urlencoded', '415', async () =>
      String((await send(rules, 'POST', `${p}/payments`, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from('a=1') })).status),
    );
    await check('415: application/json-patch+json', '415', async () =>
      String((await send(rules, 'POST', `${p}/payments`, { headers: { 'content-type': 'application/json-patch+json' }, body: Buffer.from('[]') })).status),
    );
    await check('415: application/json; charset=latin1', '415', async () =>
      String((await send(rules, 'POST', `${p}/payments`, { headers: { 'content-type': 'application/json; charset=latin1' }, body: Buffer.from('{}') })).status),
    );
    await check('415: body without content-type', '415', async () => String((await send(rules, 'POST', `${p}/payments`, { body: Buffer.from('{}') })).status));
    await check('400: invalid UTF-8', '400 invalid_utf8', async () =>
      statusAndCode(await send(rules, 'POST', `${p}/payments`, { headers: json, body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) })),
    );
    await check('400: overlong UTF-8 (C0 AF)', '400 invalid_utf8', async () =>
      statusAndCode(await send(rules, 'POST', `${p}/payments`, { headers: json, body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]) })),
    );
    await check('400: invalid JSON', '400 invalid_json', async () =>
      statusAndCode(await send(rules, 'POST', `${p}/payments`, { headers: json, body: Buffer.from('{"a":') })),
    );
    await check('200: exactly 1 MiB', '200', async () =>
      String((await send(rules, 'POST', `${p}/payments`, { headers: json, body: jsonOfSize(BODY_LIMIT) })).status),
    );
    await check('413: 1 MiB + 1, Content-Length', '413', async () =>
      String((await send(rules, 'POST', `${p}/payments`, { headers: json, body: jsonOfSize(BODY_LIMIT + 1) })).status),
    );
    await check('413: 1 MiB + 1, chunked', '413', async () =>
      String((await send(rules, 'POST', `${p}/payments`, { headers: json, body: jsonOfSize(BODY_LIMIT + 1), chunked: true })).status),
    );
    await check('405 for POST with a body to a GET path', '405 body=empty allow=GET, HEAD', async () =>
      statusAndBody(await send(rules, 'POST', `${p}/payments/pay_1`, { headers: json, body: Buffer.from('{}') })),
    );
  }
  return rows;
}

function printChecks(rows: CheckRow[]): void {
  console.log('\nAPI-rule self-check (rules app; same filter and parser logic on both adapters):');
  const names = [...new Set(rows.map((r) => r.check))];
  const header = ['check', 'expected', 'express', 'fastify'];
  const table = names.map((name) => {
    const cell = (adapter: AdapterName) => {
      const row = rows.find((r) => r.check === name && r.adapter === adapter);
      return row ? (row.pass ? 'ok' : `FAIL: ${row.got}`) : '-';
    };
    return [name, rows.find((r) => r.check === name)?.expected ?? '', cell('express'), cell('fastify')];
  });
  printRows(header, table);
}

// ---------------------------------------------------------------------------------------------
// Entry: the main thread runs the bench; a worker thread or `--loadgen` child runs autocannon.

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'loadgen') {
  const port = parentPort;
  if (port) serveLoadgen((reply) => port.postMessage(reply), (listener) => port.on('message', listener));
} else if (process.argv.includes('--loadgen')) {
  serveLoadgen(
    (reply) => process.send?.(reply),
    (listener) => process.on('message', (m) => listener(m as { id: number; job: LoadJob })),
  );
  process.on('disconnect', () => process.exit(0));
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
