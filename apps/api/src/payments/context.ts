import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '@lib/payments';
import type { RequestAuth } from '../auth/request-auth';

/** Who asked and in which request: recorded in the events' metadata (actor, correlation). */
export function commandContext(request: FastifyRequest, auth: RequestAuth): CommandContext {
  return {
    requestId: String(request.id),
    actor: auth.kind === 'api_key' ? { kind: 'api_key', id: auth.key.id, name: auth.key.name ?? null } : { kind: 'customer', id: null, name: null },
  };
}
