import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { SessionAuthenticator } from '@lib/accounts';
import { BusinessService, keyAllows } from '@lib/businesses';
import { APP_CONFIG, AppConfig } from '@lib/core';
import { ApiError } from '@lib/http';
import { ACCOUNT_ROUTE, DASHBOARD_ONLY, LIVE_MODE_ACTION, PERMISSION, PUBLIC_ROUTE, RoutePermission, SAME_ORIGIN, describePermission, permits } from './auth.decorators';
import { DashboardCookies, isCrossSite } from './cookies';

const CHALLENGE = { 'www-authenticate': 'Bearer' };
/** `Bearer <key>`: the scheme's name in any case (RFC 9110 §11.1), one space, the key as issued. */
const BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr] ([A-Za-z0-9_]{1,200})$/;
export const BUSINESS_HEADER = 'service-business';

/** How many Authorization header lines the request carried, as sent (`request.headers` keeps only the first). */
function authorizationLines(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') n++;
  return n;
}

/**
 * Spec §5 in one place: who may call a route.
 *
 * With an API key (Authorization, one header: several are 401 invalid_api_key): credentials (401), dashboard-only and account routes (403
 * session_required), business header (403 business_forbidden), restricted-key permission (403
 * permission_denied), test key on a live business (403 test_mode_unavailable).
 *
 * Without one, a dashboard session (decision 0034): its cookie from another site (403
 * cross_site_request), the session live (else 401 unauthenticated), then on a business route the
 * Service-Business header (400 business_required when missing, 403 business_forbidden for a
 * business the person cannot act for — the same answer whether it exists or not).
 *
 * Public routes need neither, but credentials sent anyway must be valid and are made available,
 * so that they act for their business as on every other route (the checkout routes: the owner's
 * extra fields, another business's checkout 404): an API key as above, or a session cookie sent
 * with Service-Business (sendsSession) as on a business route. A cookie without the header is
 * ignored there (the hosted checkout page's own requests). Sign-up, sign-in and the e-mailed
 * links (@SameOriginOnly) refuse other sites and ignore the cookie: they give a session, they do
 * not act with one.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly cookies: DashboardCookies;

  constructor(
    private readonly reflector: Reflector,
    @Inject(BusinessService) private readonly businesses: BusinessService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(SessionAuthenticator) private readonly sessions: SessionAuthenticator | null,
  ) {
    this.cookies = new DashboardCookies(config);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const meta = <T>(key: string) => this.reflector.getAllAndOverride<T | undefined>(key, [context.getHandler(), context.getClass()]);
    const isPublic = meta<boolean>(PUBLIC_ROUTE) === true;
    const accountRoute = meta<boolean>(ACCOUNT_ROUTE) === true;
    // Node's parser keeps the first of repeated Authorization lines and drops the rest: more than one is refused
    // as a malformed header, so no proxy reading another line picks another principal (audit 2026-11-30 F3, decision 0034 addendum)
    if (authorizationLines(request) > 1) throw new ApiError('invalid_api_key', 'Send one Authorization header, not several.', null, CHALLENGE);
    const header = request.headers.authorization;

    if (header === undefined || header === '') {
      const sameOrigin = meta<boolean>(SAME_ORIGIN) === true;
      if (sameOrigin) this.assertSameSite(request);
      if (isPublic) return sameOrigin || !this.sendsSession(request) || this.bySession(request, false);
      return this.bySession(request, accountRoute, meta<boolean>(DASHBOARD_ONLY) === true);
    }
    const match = BEARER.exec(header);
    if (!match) {
      const message = /^bearer /i.test(header)
        ? 'What follows "Bearer " is not an API key: a key is letters, digits and underscores (sk_test_…, sk_live_…, rk_…), with nothing after it.'
        : 'The Authorization header must be "Bearer <key>".';
      throw new ApiError('invalid_api_key', message, null, CHALLENGE);
    }
    const found = await this.businesses.authenticate(match[1]);
    if (!found) throw new ApiError('invalid_api_key', 'The API key is invalid or revoked.', null, CHALLENGE);
    if (found.key.type === 'publishable') {
      if (isPublic) return true; // a publishable key identifies a business on public routes; it grants nothing
      throw new ApiError('invalid_api_key', 'A publishable key cannot call this route: use a secret key.', null, CHALLENGE);
    }
    if (meta<boolean>(DASHBOARD_ONLY) || accountRoute) throw new ApiError('session_required', 'This route is for dashboard sessions only, not API keys.');

    const named = request.headers[BUSINESS_HEADER];
    if (named !== undefined && named !== found.business.id) {
      throw new ApiError('business_forbidden', 'With an API key, leave out the Service-Business header: the key names its business.', 'Service-Business');
    }
    const permission = meta<RoutePermission>(PERMISSION);
    if (found.key.type === 'restricted' && !isPublic && !permission?.checkedByUseCase) {
      if (!permission || !permits(permission, (resource, access) => keyAllows(found.key, resource, access))) {
        const what = permission ? describePermission(permission) : 'a secret key';
        throw new ApiError('permission_denied', `This restricted key lacks ${what}.`);
      }
    }
    if (meta<boolean>(LIVE_MODE_ACTION) && found.key.mode === 'test' && !found.business.simulated) {
      throw new ApiError('test_mode_unavailable', 'A test key cannot do this on a live business: use a live secret key.');
    }
    request.auth = { kind: 'api_key', key: found.key, business: found.business };
    return true;
  }

  /**
   * A request without an API key on a route that needs credentials: a dashboard session, or 401.
   * The 401's message says what would do: on account and dashboard-only routes only a session
   * (an API key there is 403 session_required), elsewhere a session or a secret key.
   */
  private async bySession(request: FastifyRequest, accountRoute: boolean, dashboardOnly = false): Promise<boolean> {
    const token = this.cookies.read(request, 'session');
    if (token === null || !this.sessions) {
      const message = accountRoute || dashboardOnly
        ? 'Sign in first: this route needs a dashboard session.'
        : request.headers[BUSINESS_HEADER] !== undefined
          ? 'Not signed in: sign in again (a dashboard session with the Service-Business header), or send Authorization: Bearer <secret key>.'
          : 'No API key: send Authorization: Bearer <secret key>.';
      throw new ApiError('unauthenticated', message, null, CHALLENGE);
    }
    this.assertSameSite(request);
    const live = await this.sessions.session(token);
    if (live === null) throw new ApiError('unauthenticated', 'The session has ended or expired: sign in again.', null, CHALLENGE);
    const base = { kind: 'session' as const, sessionId: live.sessionId, accountId: live.accountId, email: live.email, deviceHash: live.deviceHash };
    if (accountRoute) {
      request.auth = { ...base, business: null, role: null };
      return true;
    }
    const named = request.headers[BUSINESS_HEADER];
    if (named === undefined || named === '') throw new ApiError('business_required', 'Name the business to act for in the Service-Business header.', 'Service-Business');
    const forbidden = () => new ApiError('business_forbidden', 'You cannot act for the business the Service-Business header names.', 'Service-Business');
    if (typeof named !== 'string') throw forbidden();
    const role = await this.sessions.roleFor(live.accountId, named);
    const business = role === null ? null : await this.businesses.getBusiness(named);
    if (role === null || business === null) throw forbidden();
    // owner is the only role: a secret key's reach (permissions and live mode alike); other roles check here (decision 0034)
    request.auth = { ...base, business, role };
    return true;
  }

  /**
   * Whether a request without an API key sends a dashboard session as its credentials on a
   * public route: the session cookie together with a Service-Business header. The cookie alone
   * is no credential there — a browser sends it by itself on the hosted checkout page (same
   * origin, Path=/), whose requests name no business and stay anonymous.
   */
  private sendsSession(request: FastifyRequest): boolean {
    const named = request.headers[BUSINESS_HEADER];
    return named !== undefined && named !== '' && this.cookies.read(request, 'session') !== null;
  }

  private assertSameSite(request: FastifyRequest): void {
    if (isCrossSite(request, this.config)) throw new ApiError('cross_site_request', 'A dashboard request must come from the service’s own site.');
  }
}
