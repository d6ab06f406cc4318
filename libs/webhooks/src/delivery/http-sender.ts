import { promises as dns, LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIPv6 } from 'node:net';
import { performance } from 'node:perf_hooks';
import { signPayload } from './signing';
import { UrlPolicy, checkAddress, checkWebhookUrl } from './url-policy';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (injectable: tests and DNS-rebinding checks). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, every address, in the resolver's order). */
export const systemResolver: Resolver = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((a: LookupAddress) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export interface SendRequest {
  url: string;
  /** The event id: the `webhook-id` header, the same for every attempt. */
  eventId: string;
  /** The exact body (the event envelope as JSON). */
  body: string;
  /** Signing secrets, the current one first. */
  secrets: readonly string[];
}

export interface SendResult {
  /** A 2xx answer. */
  ok: boolean;
  /** The answer's status; null when none came (refused, unreachable, timed out). */
  responseStatus: number | null;
  /** From the start of the attempt (DNS included) to the answer's headers, or to the failure. */
  durationMs: number;
  /** Why the attempt failed; null on success. */
  error: string | null;
  /** What was sent: content-type, user-agent and the three webhook-* headers (never a secret). */
  requestHeaders: Record<string, string>;
  /** The address the connection went to, after the checks; null when none was made. */
  address: string | null;
  /** When the attempt started. */
  at: Date;
}

export interface WebhookSenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE_URLS. */
  allowPrivateUrls: boolean;
  resolver?: Resolver;
  /** The whole attempt: resolution, connection, TLS, request and answer headers (default 15 s). */
  timeoutMs?: number;
  /** Wall time (the webhook-timestamp header and `at`). */
  now?: () => Date;
  /** Most bytes of an answer read before the connection is closed (default 64 KiB). */
  maxResponseBytes?: number;
}

export const DELIVERY_TIMEOUT_MS = 15_000;
export const USER_AGENT = 'payments-service-webhooks/1 (+https://www.standardwebhooks.com)';

/**
 * Sends one delivery attempt (issue 5 points 4 and 6): POST with `content-type:
 * application/json` and the Standard Webhooks headers. Before connecting it checks the URL
 * again, resolves the host once, checks EVERY address it resolves to (one refused address
 * refuses the attempt), and pins the connection to the checked address (the socket's lookup
 * answers with it), so a second, different answer from DNS (rebinding) is never used; TLS still
 * verifies the certificate against the host name. 2xx is success; redirects are not followed
 * and count as failures; anything beyond `timeoutMs` is a timeout. Connections are not reused.
 */
export class WebhookSender {
  private readonly policy: UrlPolicy;
  private readonly resolver: Resolver;
  private readonly timeoutMs: number;
  private readonly now: () => Date;
  private readonly maxResponseBytes: number;

  constructor(options: WebhookSenderOptions) {
    this.policy = { allowPrivate: options.allowPrivateUrls };
    this.resolver = options.resolver ?? systemResolver;
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.now = options.now ?? (() => new Date());
    this.maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  }

  async send(request: SendRequest): Promise<SendResult> {
    const at = this.now();
    const started = performance.now();
    const elapsed = () => Math.max(0, Math.round(performance.now() - started));
    const requestHeaders: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signPayload(request.secrets, request.eventId, at, request.body),
    };
    const result = (fields: Partial<SendResult>): SendResult => ({
      ok: false,
      responseStatus: null,
      durationMs: elapsed(),
      error: null,
      requestHeaders,
      address: null,
      at,
      ...fields,
    });

    const checked = checkWebhookUrl(request.url, this.policy);
    if (!checked.ok) return result({ error: `url refused: ${checked.reason}` });

    let target: ResolvedAddress;
    if (checked.ip) {
      target = { address: checked.ip, family: isIPv6(checked.ip) ? 6 : 4 };
    } else {
      let answers: ResolvedAddress[];
      try {
        answers = await withTimeout(this.resolver(checked.host), this.timeoutMs, 'timeout: resolving the host');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        return result({ error: (error as Error).message.startsWith('timeout') ? (error as Error).message : `dns: ${code ?? (error as Error).message}` });
      }
      if (answers.length === 0) return result({ error: `dns: ${checked.host} has no address` });
      const allowed: ResolvedAddress[] = [];
      for (const answer of answers) {
        const verdict = checkAddress(String(answer.address), this.policy);
        if (!verdict.ok) return result({ error: `address refused: ${checked.host} resolves to ${verdict.reason}` });
        allowed.push({ address: verdict.address, family: verdict.family });
      }
      target = allowed[0];
    }

    const remaining = this.timeoutMs - elapsed();
    if (remaining <= 0) return result({ error: 'timeout' });
    const url = checked.url;
    const secure = url.protocol === 'https:';
    const pinned: LookupFunction = (_hostname, options, callback) => {
      // answer with the checked address only, whatever DNS would say now
      const cb = callback as (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
      if ((options as { all?: boolean }).all) cb(null, [{ address: target.address, family: target.family }]);
      else cb(null, target.address, target.family);
    };

    return new Promise<SendResult>((resolve) => {
      let settled = false;
      let status: number | null = null;
      let statusAt = 0;
      const finish = (fields: Partial<SendResult>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result({ address: target.address, ...fields }));
      };
      const options: https.RequestOptions = {
        protocol: url.protocol,
        hostname: checked.ip ? target.address : checked.host,
        port: checked.port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...requestHeaders, 'content-length': String(Buffer.byteLength(request.body)) },
        agent: false,
        lookup: pinned,
      };
      if (secure && !checked.ip) options.servername = checked.host;
      const req = (secure ? https : http).request(options, (res) => {
        status = res.statusCode ?? null;
        statusAt = elapsed();
        const code = status ?? 0;
        if (code >= 300 && code < 400) {
          res.destroy();
          return finish({ responseStatus: status, durationMs: statusAt, error: `redirect (${code}) not followed` });
        }
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > this.maxResponseBytes) res.destroy(); // enough: the status decided the attempt
        });
        const done = () =>
          finish({ ok: code >= 200 && code < 300, responseStatus: status, durationMs: statusAt, error: code >= 200 && code < 300 ? null : `HTTP ${code}` });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      });
      const timer = setTimeout(() => {
        req.destroy();
        if (status !== null) {
          const code = status;
          finish({ ok: code >= 200 && code < 300, responseStatus: status, durationMs: statusAt, error: code >= 200 && code < 300 ? null : `HTTP ${code}` });
        } else finish({ error: `timeout: no answer within ${this.timeoutMs} ms` });
      }, remaining);
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (status !== null) return; // the answer decided; a reset while reading it changes nothing
        finish({ error: `connection failed: ${error.code ?? error.message}` });
      });
      req.end(request.body);
    });
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
