import { randomBytes } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * A stand-in for Cloudflare Turnstile's siteverify endpoint, on 127.0.0.1 and a free port: the
 * contract as Cloudflare documents it (POST JSON or form fields secret, response, remoteip,
 * idempotency_key; answer {success, error-codes, challenge_ts, hostname, action, cdata}), with
 * tokens the test issues. A token validates once: again → timeout-or-duplicate, except a retry
 * carrying the same idempotency_key, which gets the first answer again. Not Cloudflare: the
 * tests cannot solve real challenges (decision 0032).
 */

export const TEST_TURNSTILE_SECRET = '0x4AAAAAAAtest-secret-key-0000000000';

export interface SiteverifyRequest {
  contentType: string;
  fields: Record<string, string>;
}

export interface TurnstileStandIn {
  /** http://127.0.0.1:<port>/turnstile/v0/siteverify */
  url: string;
  requests: SiteverifyRequest[];
  /** A token the widget would hand the browser after a solved challenge on a page with this action. */
  issue(action: string, hostname?: string): string;
  /** Forget which tokens were validated (Cloudflare's "network convergence": another edge has not heard yet). */
  forgetValidations(): void;
  /** The next `count` requests answer this HTTP status with no JSON (default 500), or hang without answering ('hang'). */
  fail(count: number, how?: number | 'hang'): void;
  close(): Promise<void>;
}

export async function startTurnstileStandIn(): Promise<TurnstileStandIn> {
  const issued = new Map<string, { action: string; hostname: string; at: Date }>();
  let validated = new Set<string>();
  const answers = new Map<string, object>(); // by idempotency_key
  const requests: SiteverifyRequest[] = [];
  let failures: { count: number; how: number | 'hang' } = { count: 0, how: 500 };
  const hanging: ServerResponse[] = [];

  const answer = (fields: Record<string, string>): object => {
    const errors: string[] = [];
    if (!fields.secret) errors.push('missing-input-secret');
    else if (fields.secret !== TEST_TURNSTILE_SECRET) errors.push('invalid-input-secret');
    if (!fields.response) errors.push('missing-input-response');
    if (errors.length > 0) return { success: false, 'error-codes': errors, messages: [] };
    const token = issued.get(fields.response);
    if (!token) return { success: false, 'error-codes': ['invalid-input-response'], messages: [] };
    if (validated.has(fields.response)) return { success: false, 'error-codes': ['timeout-or-duplicate'], messages: [] };
    validated.add(fields.response);
    return { success: true, 'error-codes': [], challenge_ts: token.at.toISOString(), hostname: token.hostname, action: token.action, cdata: '', metadata: { interactive: false }, messages: [] };
  };

  const handle = (request: IncomingMessage, response: ServerResponse, body: string) => {
    if (request.method !== 'POST' || request.url !== '/turnstile/v0/siteverify') {
      response.writeHead(404).end();
      return;
    }
    const contentType = request.headers['content-type'] ?? '';
    let fields: Record<string, string>;
    try {
      fields = contentType.startsWith('application/json') ? (JSON.parse(body) as Record<string, string>) : Object.fromEntries(new URLSearchParams(body));
    } catch {
      fields = {};
    }
    requests.push({ contentType, fields });
    if (failures.count > 0) {
      failures.count--;
      if (failures.how === 'hang') hanging.push(response);
      else response.writeHead(failures.how, { 'content-type': 'text/html' }).end('<html>error</html>');
      return;
    }
    const key = fields.idempotency_key;
    const result = key && answers.has(key) ? answers.get(key)! : answer(fields);
    if (key) answers.set(key, result);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
  };

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => handle(request, response, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/turnstile/v0/siteverify`,
    requests,
    issue(action, hostname = 'pay.example.test') {
      const token = `0.${randomBytes(48).toString('base64url')}`;
      issued.set(token, { action, hostname, at: new Date() });
      return token;
    },
    forgetValidations() {
      validated = new Set();
    },
    fail(count, how = 500) {
      failures = { count, how };
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
