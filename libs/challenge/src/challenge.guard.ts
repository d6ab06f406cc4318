import { CanActivate, ExecutionContext, Inject, Injectable, Logger, SetMetadata, UseGuards, applyDecorators } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '@lib/http';
import { CHALLENGE_VERIFIER, ChallengeFailure, ChallengeForm, ChallengeVerifier } from './verifier';

/** The request header carrying the bot-challenge token (spec §5.9). */
export const CHALLENGE_HEADER = 'Service-Challenge';

/** Metadata key of @RequiresChallenge: the form a route's token must be bound to (the OpenAPI document can read it). */
export const CHALLENGE_FORM = 'challenge:form';

const MESSAGES: Record<ChallengeFailure, string> = {
  missing: 'This request needs a passed bot challenge in the Service-Challenge header.',
  refused: 'The bot challenge in Service-Challenge was refused.',
  wrong_form: 'The bot challenge in Service-Challenge was solved for another form.',
  already_used: 'The bot challenge in Service-Challenge was already used (or has expired); solve a new one.',
  unavailable: 'The bot challenge could not be checked; solve a new one and try again.',
  not_configured: 'This deployment cannot check bot challenges.',
};

/**
 * Lets the request through only with a token in Service-Challenge that the verifier passes for
 * the route's form; else 400 challenge_failed (field Service-Challenge). The token is never
 * logged.
 */
@Injectable()
export class ChallengeGuard implements CanActivate {
  private readonly logger = new Logger('challenge');

  constructor(
    private readonly reflector: Reflector,
    @Inject(CHALLENGE_VERIFIER) private readonly verifier: ChallengeVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const form = this.reflector.getAllAndOverride<ChallengeForm | undefined>(CHALLENGE_FORM, [context.getHandler(), context.getClass()]);
    if (form === undefined) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const header = request.headers[CHALLENGE_HEADER.toLowerCase()];
    // a repeated header is refused: which of the tokens would be the one? (Node joins repeats of
    // an unknown header with a comma, which no token has; an array is refused here all the same)
    if (Array.isArray(header)) throw new ApiError('challenge_failed', 'Send one Service-Challenge header.', CHALLENGE_HEADER);
    const result = await this.verifier.verify({ token: header?.trim(), form, ip: request.ip ?? null });
    if (result.passed) return true;
    if (result.reason === 'unavailable' || result.reason === 'not_configured') this.logger.warn(`bot challenge for ${form} failed: ${result.reason} (${request.id})`);
    throw new ApiError('challenge_failed', MESSAGES[result.reason], CHALLENGE_HEADER);
  }
}

/**
 * The route needs a passed bot challenge for `form` in Service-Challenge (spec §5.9), else 400
 * challenge_failed. Needs ChallengeModule in the app (the verifier it asks).
 *
 *   @Post('sessions') @Public() @RequiresChallenge('sign_in') signIn(...) {}
 */
export function RequiresChallenge(form: ChallengeForm): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(CHALLENGE_FORM, form), UseGuards(ChallengeGuard));
}
