import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StartedSession } from '@lib/accounts';
import type { AppConfig } from '@lib/core';

/** The cookies of the dashboard (decision 0034). */
export type CookieKind = 'session' | 'device' | 'signup' | 'webauthn';

/** How long each lives in the browser, in seconds (the session's own expiry is the server's). */
const MAX_AGE: Record<CookieKind, number> = {
  session: 14 * 24 * 60 * 60,
  device: 400 * 24 * 60 * 60,
  signup: 24 * 60 * 60,
  /** The browser that asked for passkey sign-in options (decision 0037): as long as its challenge. */
  webauthn: 5 * 60,
};

/**
 * The dashboard's cookies: HttpOnly, SameSite=Strict, Path=/; when the service's public URL
 * (API_BASE_URL) is https, also Secure and named with the `__Host-` prefix (bound to this host,
 * never set by a sibling domain). Over plain http (local development, tests) the browser would
 * refuse Secure and `__Host-` cookies, so they are left out.
 */
export class DashboardCookies {
  readonly secure: boolean;

  constructor(config: Pick<AppConfig, 'apiBaseUrl'>) {
    this.secure = config.apiBaseUrl !== null && config.apiBaseUrl.startsWith('https:');
  }

  name(kind: CookieKind): string {
    return this.secure ? `__Host-${kind}` : kind;
  }

  /** The cookie's value on a request, or null. */
  read(request: FastifyRequest, kind: CookieKind): string | null {
    const header = request.headers.cookie;
    if (typeof header !== 'string' || header === '') return null;
    const wanted = this.name(kind);
    for (const part of header.split(';')) {
      const at = part.indexOf('=');
      if (at < 0) continue;
      if (part.slice(0, at).trim() === wanted) return part.slice(at + 1).trim() || null;
    }
    return null;
  }

  set(reply: FastifyReply, kind: CookieKind, value: string): void {
    reply.header('set-cookie', this.serialize(kind, value, MAX_AGE[kind]));
  }

  /** The cookies of a session just started (sign-up verified, sign-in, its second step, a passkey sign-in): `session`, then `device`. */
  startSession(reply: FastifyReply, started: Pick<StartedSession<unknown>, 'sessionToken' | 'deviceToken'>): void {
    this.set(reply, 'session', started.sessionToken);
    this.set(reply, 'device', started.deviceToken);
  }

  clear(reply: FastifyReply, kind: CookieKind): void {
    reply.header('set-cookie', this.serialize(kind, '', 0));
  }

  private serialize(kind: CookieKind, value: string, maxAge: number): string {
    return [`${this.name(kind)}=${value}`, 'Path=/', `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Strict', ...(this.secure ? ['Secure'] : [])].join('; ');
  }
}

/**
 * The cross-site rule (decision 0034): a browser request that uses, or asks for, a dashboard
 * cookie is refused unless it comes from the service's own origin — `Sec-Fetch-Site`, when sent,
 * must be `same-origin` (or `none`: typed by the person), and `Origin`, when sent, must be the
 * service's own origin (API_BASE_URL's, else the request's own scheme and host). A request with
 * neither header is no browser's cross-site request (browsers send Origin on every cross-origin
 * POST, and Sec-Fetch-Site on every request).
 */
export function isCrossSite(request: FastifyRequest, config: Pick<AppConfig, 'apiBaseUrl'>): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  const own = config.apiBaseUrl ? new URL(config.apiBaseUrl).origin : `${request.protocol}://${request.host}`;
  return origin !== own;
}
