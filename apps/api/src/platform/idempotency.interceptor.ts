import { createHash } from 'node:crypto';
import { CallHandler, ExecutionContext, HttpStatus, Inject, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Observable, catchError, from, mergeMap, of, throwError } from 'rxjs';
import stableStringify from 'safe-stable-stringify';
import { IdempotencyStore, fingerprint } from '@lib/idempotency';
import { ApiError } from '@lib/http';
import { authOf, businessOf } from '../auth/request-auth';

export const IDEMPOTENCY_STORE = Symbol('IDEMPOTENCY_STORE');
export const IDEMPOTENCY = 'idempotency:mode';
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/**
 * Retry-After of 409 idempotency_key_in_use: a running request normally finishes within a
 * second; one whose process died keeps its key until the lock expires (DEFAULT_LOCK_TTL_MS,
 * 60 s), and a retry each second finds it free as soon as it is (operator audit 2026-11-29, F5).
 */
export const IDEMPOTENCY_IN_USE_RETRY_AFTER_SEC = 1;

/** §8.7: these POSTs need an Idempotency-Key (400 idempotency_key_required without one). */
export const IdempotencyKeyRequired = () => SetMetadata(IDEMPOTENCY, 'required');
/** §8.8: responses that carry a secret are never stored or replayed; the key is ignored. */
export const IdempotencyKeyIgnored = () => SetMetadata(IDEMPOTENCY, 'ignored');

/**
 * Spec §8 idempotency on every POST: a 2xx response is kept 24 h and replayed for the same
 * key, method, path and body with `Idempotent-Replayed: true`; another method, path or body
 * with the key → 409 idempotency_key_reused; the same while the first runs → 409
 * idempotency_key_in_use; an error frees the key. Keys are per business; a request without a
 * key of a business (a checkout page) is kept by key and body together.
 *
 * POST routes answer with one static success status (their @HttpCode, else 201), which is
 * what a replay answers with.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.method !== 'POST') return next.handle(); // §8.2
    const mode = this.reflector.getAllAndOverride<string | undefined>(IDEMPOTENCY, [context.getHandler(), context.getClass()]);
    if (mode === 'ignored') return next.handle();
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (key === undefined) {
      if (mode === 'required') throw new ApiError('idempotency_key_required', 'This request needs an Idempotency-Key header (a new random value per operation).', 'Idempotency-Key');
      return next.handle();
    }
    if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
      throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 characters.', 'Idempotency-Key');
    }
    // the body as data: the same members in another order or spacing are the same request (§8)
    const print = fingerprint('POST', request.url, stableStringify(request.body ?? null) ?? 'null');
    const auth = authOf(request);
    const business = businessOf(auth);
    // §8.6: per business (a secret key or a session acting for it alike: #19 B17); a person's own routes per person;
    // without a business or person, key and body together (a new body is a new request)
    const [scope, storeKey] = business !== null ? [`biz:${business.id}`, key] : auth.kind === 'session' ? [`acc:${auth.accountId}`, key] : ['public', `${key}:${print}`];
    const status = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
    const reply = context.switchToHttp().getResponse<FastifyReply>();

    return from(this.store.begin(scope, storeKey, print)).pipe(
      mergeMap((claim) => {
        switch (claim.state) {
          case 'replay':
            reply.header('idempotent-replayed', 'true');
            return of(JSON.parse(claim.response.body) as unknown);
          case 'in_use':
            return throwError(
              () =>
                new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry when it has finished.', 'Idempotency-Key', {
                  'retry-after': String(IDEMPOTENCY_IN_USE_RETRY_AFTER_SEC),
                }),
            );
          case 'reused':
            return throwError(() => new ApiError('idempotency_key_reused', 'This Idempotency-Key was used for a different request (method, path or body).', 'Idempotency-Key'));
          case 'started':
            // the same for every run of this request: a run after one that died mid-way derives the same ids (WriteMeta.idempotencySeed)
            request.idempotencySeed = createHash('sha256').update(JSON.stringify([scope, storeKey, print])).digest('hex');
            return next.handle().pipe(
              mergeMap(async (body) => {
                await this.store.complete(scope, storeKey, claim.token, { status, headers: {}, body: JSON.stringify(body ?? null) });
                return body;
              }),
              catchError((error: unknown) => from(this.store.release(scope, storeKey, claim.token)).pipe(mergeMap(() => throwError(() => error)))),
            );
        }
      }),
    );
  }
}
