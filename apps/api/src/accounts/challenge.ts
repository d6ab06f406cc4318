import type { FastifyRequest } from 'fastify';
import type { ChallengeCheck, ChallengeForm } from '@lib/accounts';
import { ApiError } from '@lib/http';

export const CHALLENGE_HEADER = 'service-challenge';

/** Spec §5.9: a passed bot-challenge token for this form in `Service-Challenge`, else 400 challenge_failed. */
export async function requireChallenge(check: ChallengeCheck, request: FastifyRequest, form: ChallengeForm): Promise<void> {
  const token = request.headers[CHALLENGE_HEADER];
  const passed = typeof token === 'string' && (await check.verify(token, form, request.ip));
  if (!passed) throw new ApiError('challenge_failed', 'The bot challenge is missing, refused, already used or from another form.', 'Service-Challenge');
}
