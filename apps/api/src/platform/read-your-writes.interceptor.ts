import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Observable, from, switchMap } from 'rxjs';
import { CommandRunner } from '@lib/eventstore';
import { authOf, businessOf } from '../auth/request-auth';

/**
 * Read your writes for the writes answered before the read models had them (a new payment is
 * answered from its own events: CommandRunner.answeredBeforeReadModels). Every GET waits first for
 * the ones this process noted in the caller's scope — the business of its key; any scope for a
 * public route — so the GET after a 201 always shows it. Nothing noted, or already projected
 * (nearly always): no wait, no statement.
 */
@Injectable()
export class ReadYourWritesInterceptor implements NestInterceptor {
  constructor(private readonly runner: CommandRunner) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.method !== 'GET' && request.method !== 'HEAD') return next.handle();
    const auth = authOf(request);
    const scope = businessOf(auth)?.id ?? null;
    if (!this.runner.hasUnseenWrites(scope)) return next.handle();
    return from(this.runner.readBarrier(scope)).pipe(switchMap(() => next.handle()));
  }
}
