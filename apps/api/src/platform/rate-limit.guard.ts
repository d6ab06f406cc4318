import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '@lib/http';
import { RATE_LIMITS, RateLimiter } from '@lib/rate-limit';
import { authOf, businessOf } from '../auth/request-auth';

export const RATE_LIMITER = Symbol('RATE_LIMITER');
export const RATE_LIMIT_RULE = 'rate-limit:rule';

const RULES = new Map(RATE_LIMITS.map((r) => [r.name, r]));

/** Puts a route under one of the §8 rules (routes that share a budget name the same rule). */
export function RateLimit(rule: string) {
  if (!RULES.has(rule)) throw new Error(`unknown rate-limit rule ${JSON.stringify(rule)}; known: ${[...RULES.keys()].join(', ')}`);
  return SetMetadata(RATE_LIMIT_RULE, rule);
}

/**
 * Counts a request against its route's rule: per client IP (request.ip believes forwarded
 * headers only from TRUSTED_PROXIES) or per business; past the budget, 429 rate_limited with
 * Retry-After in whole seconds. Runs after authentication, so per-business rules know the
 * business.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const name = this.reflector.getAllAndOverride<string | undefined>(RATE_LIMIT_RULE, [context.getHandler(), context.getClass()]);
    if (!name) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const rule = RULES.get(name)!;
    const auth = authOf(request);
    const business = businessOf(auth);
    const subject = rule.per === 'business' && business !== null ? business.id : request.ip;
    const decision = await this.limiter.consume(name, subject);
    if (decision.allowed) return true;
    throw new ApiError('rate_limited', `Too many requests: wait ${decision.retryAfterSec} s.`, null, { 'retry-after': String(decision.retryAfterSec) });
  }
}
