import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '@lib/http';
import { RATE_LIMITS, RateLimiter, SpentPoint } from '@lib/rate-limit';
import { authOf, businessOf } from '../auth/request-auth';

export const RATE_LIMITER = Symbol('RATE_LIMITER');
export const RATE_LIMIT_RULE = 'rate-limit:rule';

const RULES = new Map(RATE_LIMITS.map((r) => [r.name, r]));

/** Puts a route under one of the §8 rules (routes that share a budget name the same rule). */
export function RateLimit(rule: string) {
  if (!RULES.has(rule)) throw new Error(`unknown rate-limit rule ${JSON.stringify(rule)}; known: ${[...RULES.keys()].join(', ')}`);
  return SetMetadata(RATE_LIMIT_RULE, rule);
}

/** Where the guard leaves, on the request, how to give back a point that may not count. */
const REFUND = Symbol('rate-limit:refund');
type WithRefund = FastifyRequest & { [REFUND]?: () => Promise<void> };

/** The idempotency interceptor's mark of a replayed answer (§8.3). */
const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * Counts a request against its route's rule: per client IP (request.ip believes forwarded
 * headers only from TRUSTED_PROXIES) or per business; past the budget, 429 rate_limited with
 * Retry-After in whole seconds. Runs after authentication, so per-business rules know the
 * business. A rule that counts only successful requests (`counts: 'successful'`, the webhook
 * test events and resends) still takes its point here, before the route runs, and the answer
 * gives it back unless it is a 2xx that is not a replay (refundUnsuccessfulRequests).
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
    if (decision.allowed) {
      const spent: SpentPoint | undefined = decision.spent;
      if (spent) (request as WithRefund)[REFUND] = () => this.limiter.refund(name, subject, spent);
      return true;
    }
    throw new ApiError('rate_limited', `Too many requests: wait ${decision.retryAfterSec} s.`, null, { 'retry-after': String(decision.retryAfterSec) });
  }
}

/** Whether an answer did what its route is limited for: a 2xx that is not an idempotent replay. */
function succeeded(reply: FastifyReply): boolean {
  return reply.statusCode >= 200 && reply.statusCode < 300 && String(reply.getHeader(REPLAYED_HEADER) ?? '') !== 'true';
}

/**
 * For rules that count only successful requests: gives a request's point back when its answer is
 * not a success — whatever refused it after the guard (a later guard, validation, the idempotency
 * interceptor's 409s, the handler's 404, the error filter) or a replay that did nothing again. A
 * Fastify onSend hook, so it sees every answer's final status and runs before the answer is
 * written: the client's next request already finds the point back. Registered once on the app's
 * Fastify instance (createApiApp).
 */
export function refundUnsuccessfulRequests(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (request, reply, payload) => {
    const holder = request as WithRefund;
    const refund = holder[REFUND];
    if (refund === undefined) return payload;
    delete holder[REFUND];
    if (!succeeded(reply)) {
      try {
        await refund();
      } catch (error) {
        // the point stays spent; the answer goes out as it is
        request.log.error({ err: error }, 'rate limit refund failed');
      }
    }
    return payload;
  });
}
