import type { FastifyRequest } from 'fastify';
import type { BrowserContext } from '@lib/accounts';
import type { WriteMeta } from '@lib/eventstore';
import { DashboardCookies } from '../auth/cookies';

/** The request's browser as the account use cases take it: address, user agent, the sign-up and device cookies. */
export function browserOf(request: FastifyRequest, cookies: DashboardCookies): BrowserContext {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' ? agent : null, signupToken: cookies.read(request, 'signup'), deviceToken: cookies.read(request, 'device') };
}

/** The metadata of a write by a person not signed in yet (sign-up, sign-in). */
export function visitorMeta(request: FastifyRequest): WriteMeta {
  return { actor: { kind: 'person', id: null, name: null }, requestId: String(request.id) };
}
