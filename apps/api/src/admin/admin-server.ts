import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { BusinessService, DomainError, operatorActor } from '@lib/businesses';
import { DomainRefusal } from '@lib/domain';
import type { Actor } from '@lib/eventstore';
import { ServicePauses, isPauseTarget } from '@lib/operations';

/** Where a running server tells the operator CLI how to reach it (0600, removed on stop). */
export const ADMIN_FILE = 'admin.json';

export interface AdminEndpoint {
  url: string;
  token: string;
  pid: number;
}

/**
 * The operator's door into a running service: a small HTTP server bound to 127.0.0.1 that
 * the CLI uses while the server owns the embedded store (one process per data directory).
 * It is not part of the public API: loopback only, a random token per start, written with
 * mode 0600 into DATA_DIR for the CLI of the same user to read.
 */
export class AdminServer {
  private server: Server | null = null;
  private endpoint: AdminEndpoint | null = null;

  constructor(
    private readonly businesses: BusinessService,
    private readonly dataDir: string,
    private readonly pauses: ServicePauses,
    /** The service disables a payment link (decision 0030): the links capability's use case on the CommandBus. */
    private readonly disableLink: (linkId: string, reason: string, actor: Actor) => Promise<unknown> = async () => {
      throw new DomainRefusal('not_found', 'Links are not served here.');
    },
  ) {}

  async start(): Promise<AdminEndpoint> {
    const token = randomBytes(32).toString('hex');
    const server = createServer((req, res) => void this.handle(req, res, token));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    const { port } = server.address() as AddressInfo;
    this.endpoint = { url: `http://127.0.0.1:${port}`, token, pid: process.pid };
    writeFileSync(join(this.dataDir, ADMIN_FILE), JSON.stringify(this.endpoint), { mode: 0o600 });
    return this.endpoint;
  }

  async stop(): Promise<void> {
    const file = join(this.dataDir, ADMIN_FILE);
    try {
      if (this.endpoint && JSON.parse(readFileSync(file, 'utf8')).token === this.endpoint.token) rmSync(file, { force: true });
    } catch {
      /* already gone */
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  private async handle(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      if (!authorized(req.headers.authorization, token)) return send(401, { error: { code: 'unauthenticated', message: 'admin token required' } });
      const url = new URL(req.url ?? '/', 'http://admin');
      const body = req.method === 'POST' ? await readJson(req) : {};
      const revoke = /^\/keys\/([A-Za-z0-9_]+)\/revoke$/.exec(url.pathname);
      const disable = /^\/links\/([A-Za-z0-9_]+)\/disable$/.exec(url.pathname);
      const suspension = /^\/businesses\/([A-Za-z0-9_]+)\/(suspend|reinstate)$/.exec(url.pathname);
      if (req.method === 'POST' && url.pathname === '/businesses') {
        const referral = typeof body.referral_code === 'string' ? { referral_code: body.referral_code } : {};
        return send(201, await this.businesses.createBusiness({ name: String(body.name ?? ''), simulated: body.simulated === true, ...referral }));
      }
      if (req.method === 'POST' && url.pathname === '/keys') {
        const created = await this.businesses.createKey({
          businessId: String(body.business_id ?? ''),
          kind: body.type === 'restricted' ? 'restricted' : body.type === 'publishable' ? 'publishable' : 'secret',
          mode: body.mode === 'test' ? 'test' : 'live',
          permissions: typeof body.permissions === 'string' ? body.permissions : undefined,
          name: typeof body.name === 'string' ? body.name : undefined,
        });
        return send(201, created);
      }
      if (url.pathname === '/pauses' || url.pathname === '/pauses/resume') {
        if (req.method === 'GET' && url.pathname === '/pauses') return send(200, { data: await this.pauses.list() });
        if (req.method === 'POST' && isPauseTarget(body.target)) {
          const actor = operatorActor(body.operator);
          const change = url.pathname === '/pauses' ? await this.pauses.pause(body.target, String(body.reason ?? ''), actor) : await this.pauses.resume(body.target, actor);
          return send(200, { data: change.pauses, changed: change.changed }); // changed false: it already was as asked (no event)
        }
        if (req.method === 'POST') return send(400, { error: { code: 'invalid_request', message: 'target is not something that can be paused', field: 'target' } });
      }
      if (req.method === 'GET' && url.pathname === '/keys') {
        return send(200, { data: await this.businesses.listKeysOfBusiness(url.searchParams.get('business_id') ?? '') });
      }
      if (req.method === 'POST' && revoke) return send(200, { key: await this.businesses.revokeKey(revoke[1]) });
      if (req.method === 'POST' && disable) {
        if (typeof body.reason !== 'string') return send(400, { error: { code: 'invalid_request', message: 'reason is required', field: 'reason' } });
        return send(200, { link: await this.disableLink(disable[1], body.reason, operatorActor(body.operator)) });
      }
      if (req.method === 'POST' && suspension) {
        // the operator names themselves (the CLI of the user who holds the token): the events' actor
        const actor = operatorActor(body.operator);
        const [, businessId, action] = suspension;
        const business =
          action === 'suspend'
            ? await this.businesses.suspendBusiness(businessId, { reason: body.reason as string, actor })
            : await this.businesses.reinstateBusiness(businessId, { actor });
        return send(200, { business });
      }
      send(404, { error: { code: 'not_found', message: `no admin route ${req.method} ${url.pathname}` } });
    } catch (error) {
      if (error instanceof DomainError || error instanceof DomainRefusal) return send(error.status, { error: { code: error.code, message: error.message, field: error.field } });
      if (error instanceof SyntaxError) return send(400, { error: { code: 'invalid_json', message: error.message } });
      send(500, { error: { code: 'internal_error', message: error instanceof Error ? error.message : String(error) } });
    }
  }
}

function authorized(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('admin request too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const parsed: unknown = text ? JSON.parse(text) : {};
  // null, an array or a scalar is a client's mistake like bad JSON (400 invalid_json), not a 500
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new SyntaxError('the body must be a JSON object');
  return parsed as Record<string, unknown>;
}
