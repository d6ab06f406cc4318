import { CanActivate, ExecutionContext, Inject, Injectable, Optional, PipeTransform, UseGuards, applyDecorators } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { StepUpCheck } from '@lib/accounts';
import { STEP_UP_HOW } from '@lib/domain';
import { ApiError } from '@lib/http';
import { ApiErrors } from '../platform/openapi';
import { Auth, RequestAuth, authOf } from './request-auth';

/**
 * Spec §5.6 (decision 0037): whether a caller may make a sensitive change now. A session must
 * have proved its person (the password or a passkey: a step-up, or the sign-in that started it)
 * within 15 minutes; API keys are never asked (nor is nobody: public routes have no step-up).
 * `check` is null in an app without accounts, where no session exists.
 */
async function steppedUp(check: StepUpCheck | null, auth: RequestAuth): Promise<boolean> {
  if (auth.kind !== 'session') return true;
  return check !== null && (await check.holds(auth.sessionId));
}

/**
 * A route that is always a sensitive change: without a step-up (steppedUp), 403
 * step_up_required. Runs after the global AuthGuard, which put the caller on the request.
 */
@Injectable()
export class StepUpGuard implements CanActivate {
  constructor(@Optional() @Inject(StepUpCheck) private readonly check: StepUpCheck | null) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (await steppedUp(this.check, authOf(context.switchToHttp().getRequest<FastifyRequest>()))) return true;
    throw new ApiError('step_up_required', `Confirm it is you first: ${STEP_UP_HOW}.`);
  }
}

/** Whether the caller has stepped up (steppedUp), as a handler's argument: the pipe of @SteppedUp. */
@Injectable()
export class SteppedUpPipe implements PipeTransform<RequestAuth, Promise<boolean>> {
  constructor(@Optional() @Inject(StepUpCheck) private readonly check: StepUpCheck | null) {}

  transform(auth: RequestAuth): Promise<boolean> {
    return steppedUp(this.check, auth);
  }
}

/**
 * A sensitive change (where payments go, who can reach the business; spec §5.6): a session needs
 * a step-up within 15 minutes (403 step_up_required); API keys pass. Next to @DashboardOnly.
 */
export const RequiresStepUp = () => applyDecorators(UseGuards(StepUpGuard), ApiErrors('step_up_required'));

/**
 * For a change that is sensitive only sometimes, which its use case decides from what it changes
 * (giving an API key more access; decision 0039): `@SteppedUp() steppedUp: boolean`, the
 * caller's step-up (steppedUp: true for an API key), for the use case to refuse with 403 step_up_required. The route lists
 * step_up_required in its own @ApiErrors.
 */
export const SteppedUp = () => Auth(SteppedUpPipe);
