import { CanActivate, ExecutionContext, Inject, Injectable, Optional, UseGuards, applyDecorators } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { StepUpCheck } from '@lib/accounts';
import { ApiError } from '@lib/http';
import { ApiErrors } from '../platform/openapi';
import { authOf } from './request-auth';

/**
 * Spec §5.6 (decision 0037): a session must have proved its person (the password or a passkey:
 * a step-up, or the sign-in that started it) within 15 minutes, else 403 step_up_required.
 * API keys are never asked. Runs after the global AuthGuard, which put the caller on the request.
 */
@Injectable()
export class StepUpGuard implements CanActivate {
  constructor(@Optional() @Inject(StepUpCheck) private readonly check: StepUpCheck | null) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const auth = authOf(context.switchToHttp().getRequest<FastifyRequest>());
    if (auth.kind !== 'session') return true;
    if (this.check && (await this.check.holds(auth.sessionId))) return true;
    throw new ApiError('step_up_required', 'Confirm it is you first: POST /sessions/current/step-up with your password or a passkey (valid 15 minutes).');
  }
}

/**
 * A sensitive change (where payments go, who can reach the business; spec §5.6): a session needs
 * a step-up within 15 minutes (403 step_up_required); API keys pass. Next to @DashboardOnly.
 */
export const RequiresStepUp = () => applyDecorators(UseGuards(StepUpGuard), ApiErrors('step_up_required'));
