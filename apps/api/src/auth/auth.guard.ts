import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { Access, BusinessService, Resource, keyAllows } from '@lib/businesses';
import { ApiError } from '@lib/http';
import { DASHBOARD_ONLY, LIVE_MODE_ACTION, PERMISSION, PUBLIC_ROUTE } from './auth.decorators';

const CHALLENGE = { 'www-authenticate': 'Bearer' };
const BEARER = /^Bearer ([A-Za-z0-9_]{1,200})$/;
export const BUSINESS_HEADER = 'service-business';

/**
 * Spec §5 in one place: who may call a route. Order: credentials (401), dashboard-only (403
 * session_required), business header (403 business_forbidden), restricted-key permission
 * (403 permission_denied), test key on a live business (403 test_mode_unavailable).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(BusinessService) private readonly businesses: BusinessService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const meta = <T>(key: string) => this.reflector.getAllAndOverride<T | undefined>(key, [context.getHandler(), context.getClass()]);
    const isPublic = meta<boolean>(PUBLIC_ROUTE) === true;
    const header = request.headers.authorization;

    if (header === undefined || header === '') {
      if (isPublic) return true;
      throw new ApiError('unauthenticated', 'No API key: send Authorization: Bearer <secret key>.', null, CHALLENGE);
    }
    const match = BEARER.exec(header);
    if (!match) throw new ApiError('invalid_api_key', 'The Authorization header must be "Bearer <key>".', null, CHALLENGE);
    const found = await this.businesses.authenticate(match[1]);
    if (!found) throw new ApiError('invalid_api_key', 'The API key is invalid or revoked.', null, CHALLENGE);
    if (found.key.type === 'publishable') {
      if (isPublic) return true; // a publishable key identifies a business on public routes; it grants nothing
      throw new ApiError('invalid_api_key', 'A publishable key cannot call this route: use a secret key.', null, CHALLENGE);
    }
    if (meta<boolean>(DASHBOARD_ONLY)) throw new ApiError('session_required', 'This route is for dashboard sessions only, not API keys.');

    const named = request.headers[BUSINESS_HEADER];
    if (named !== undefined && named !== found.business.id) {
      throw new ApiError('business_forbidden', 'With an API key, leave out the Service-Business header: the key names its business.', BUSINESS_HEADER);
    }
    const permission = meta<{ resource: Resource; access: Access }>(PERMISSION);
    if (found.key.type === 'restricted' && !isPublic) {
      if (!permission || !keyAllows(found.key, permission.resource, permission.access)) {
        const what = permission ? `${permission.access} access to ${permission.resource}` : 'a secret key';
        throw new ApiError('permission_denied', `This restricted key lacks ${what}.`);
      }
    }
    if (meta<boolean>(LIVE_MODE_ACTION) && found.key.mode === 'test' && !found.business.simulated) {
      throw new ApiError('test_mode_unavailable', 'A test key cannot do this on a live business: use a live secret key.');
    }
    request.auth = { kind: 'api_key', key: found.key, business: found.business };
    return true;
  }
}
