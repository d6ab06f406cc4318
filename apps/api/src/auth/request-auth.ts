import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AccountRole } from '@lib/accounts';
import type { ApiKeyView, Business } from '@lib/businesses';
import type { WriteMeta } from '@lib/eventstore';
import { ApiError } from '@lib/http';

/**
 * A signed-in person's request (decision 0034): their session, and — on a business route — the
 * business the Service-Business header names, with their role in it (null on their own routes:
 * /me, /sessions).
 */
export interface SessionAuth {
  kind: 'session';
  sessionId: string;
  accountId: string;
  email: string;
  /** SHA-256 of the browser's device cookie. */
  deviceHash: string;
  business: Business | null;
  role: AccountRole | null;
}

/** Who is calling: an API key of a business, a signed-in person, or nobody (public routes). */
export type RequestAuth = { kind: 'api_key'; key: ApiKeyView; business: Business } | SessionAuth | { kind: 'anonymous' };

declare module 'fastify' {
  interface FastifyRequest {
    auth?: RequestAuth;
    /** Set by the idempotency interceptor for a request it runs under an Idempotency-Key (WriteMeta.idempotencySeed). */
    idempotencySeed?: string;
  }
}

export function authOf(request: FastifyRequest): RequestAuth {
  return request.auth ?? { kind: 'anonymous' };
}

/** The business a request acts for (an API key's, or the one a session names), or null. */
export function businessOf(auth: RequestAuth): Business | null {
  return auth.kind === 'anonymous' ? null : auth.business;
}

/**
 * The key a request's access is judged as: an API key itself; a session acts with a secret
 * key's reach in its business's mode (owners have every permission; decision 0034); nobody, as a
 * publishable key.
 */
export function accessOf(auth: RequestAuth): Pick<ApiKeyView, 'type' | 'permissions'> & { mode: 'live' | 'test' } {
  if (auth.kind === 'api_key') return auth.key;
  if (auth.kind === 'session') return { type: 'secret', permissions: null, mode: auth.business?.simulated ? 'test' : 'live' };
  return { type: 'publishable', permissions: null, mode: 'live' };
}

/** The caller's auth in a handler: `@Auth() auth: RequestAuth`. */
export const Auth = createParamDecorator((_: unknown, context: ExecutionContext) => authOf(context.switchToHttp().getRequest<FastifyRequest>()));

/** The calling business in a handler that requires a key or a session acting for a business: `@CurrentBusiness() business: Business`. */
export const CurrentBusiness = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const business = businessOf(authOf(context.switchToHttp().getRequest<FastifyRequest>()));
  if (business === null) throw new ApiError('unauthenticated', 'Send your secret key: Authorization: Bearer sk_….');
  return business;
});

/** The signed-in person's session on an @AccountRoute: `@CurrentSession() session: SessionAuth`. */
export const CurrentSession = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const auth = authOf(context.switchToHttp().getRequest<FastifyRequest>());
  if (auth.kind !== 'session') throw new ApiError('unauthenticated', 'Sign in first: this route needs a dashboard session.');
  return auth;
});

/**
 * Who made a request, as events record it: the API key, the signed-in person, or — on public
 * routes, which checkout pages call — the customer.
 */
export function actorOf(auth: RequestAuth): { kind: string; id: string | null; name: string | null } {
  if (auth.kind === 'api_key') return { kind: 'api_key', id: auth.key.id, name: auth.key.name ?? null };
  if (auth.kind === 'session') return { kind: 'person', id: auth.accountId, name: null };
  return { kind: 'customer', id: null, name: null };
}

/** The metadata of what a request writes: its actor and request id. */
export function writeMeta(request: FastifyRequest): WriteMeta {
  const meta: WriteMeta = { actor: actorOf(authOf(request)), requestId: String(request.id) };
  if (request.idempotencySeed !== undefined) meta.idempotencySeed = request.idempotencySeed;
  return meta;
}
