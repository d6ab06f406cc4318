import { ExecutionContext, Inject, Injectable, PipeTransform, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { RelyingParty } from '@lib/accounts';
import { APP_CONFIG, AppConfig } from '@lib/core';

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

/** relyingPartyOf the request a pipe is given, with the app's config (Nest injects the pipe, so no controller needs APP_CONFIG for it). */
@Injectable()
export class RelyingPartyPipe implements PipeTransform<FastifyRequest, RelyingParty> {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  transform(request: FastifyRequest): RelyingParty {
    return relyingPartyOf(request, this.config);
  }
}

const RequestOf = createParamDecorator((_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<FastifyRequest>());

/** The request's relying party in a handler: `@CurrentRelyingParty() relyingParty: RelyingParty`. */
export const CurrentRelyingParty = (): ParameterDecorator => RequestOf(undefined, RelyingPartyPipe);
