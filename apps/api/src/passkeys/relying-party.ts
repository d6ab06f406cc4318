import type { FastifyRequest } from 'fastify';
import type { RelyingParty } from '@lib/accounts';
import type { AppConfig } from '@lib/core';

/**
 * The WebAuthn relying party of a request (decision 0037): the service's public origin
 * (API_BASE_URL's, else the request's own scheme and host — the origin the cross-site rule
 * accepts), its host name as RP ID and as the name shown.
 */
export function relyingPartyOf(request: FastifyRequest, config: Pick<AppConfig, 'apiBaseUrl'>): RelyingParty {
  const origin = config.apiBaseUrl ? new URL(config.apiBaseUrl).origin : `${request.protocol}://${request.host}`;
  const id = new URL(origin).hostname;
  return { id, origin, name: id };
}
