import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { ApiKeyView, Business } from '@lib/businesses';
import type { WriteMeta } from '@lib/eventstore';
import { ApiError } from '@lib/http';

/** Who is calling: an API key of a business, or nobody (public routes). */
export type RequestAuth = { kind: 'api_key'; key: ApiKeyView; business: Business } | { kind: 'anonymous' };

declare module 'fastify' {
  interface FastifyRequest {
    auth?: RequestAuth;
  }
}

export function authOf(request: FastifyRequest): RequestAuth {
  return request.auth ?? { kind: 'anonymous' };
}

/** The caller's auth in a handler: `@Auth() auth: RequestAuth`. */
export const Auth = createParamDecorator((_: unknown, context: ExecutionContext) => authOf(context.switchToHttp().getRequest<FastifyRequest>()));

/** The calling business in a handler that requires a key: `@CurrentBusiness() business: Business`. */
export const CurrentBusiness = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const auth = authOf(context.switchToHttp().getRequest<FastifyRequest>());
  if (auth.kind !== 'api_key') throw new ApiError('unauthenticated', 'Send your secret key: Authorization: Bearer sk_….');
  return auth.business;
});

/**
 * Who made a request, as events record it: the API key, or — on public routes, which checkout
 * pages call — the customer.
 */
export function actorOf(auth: RequestAuth): { kind: string; id: string | null; name: string | null } {
  return auth.kind === 'api_key' ? { kind: 'api_key', id: auth.key.id, name: auth.key.name ?? null } : { kind: 'customer', id: null, name: null };
}

/** The metadata of what a request writes: its actor and request id. */
export function writeMeta(request: FastifyRequest): WriteMeta {
  return { actor: actorOf(authOf(request)), requestId: String(request.id) };
}
