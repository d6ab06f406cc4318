import { DomainRefusal } from '@lib/domain';
import { ApiError } from '@lib/http';
import { BusinessMailUnavailableError } from '../business-mail';

/**
 * A refusal as the API answers it: 429s carry `Retry-After` (seconds, from the decider's
 * `retry_after` detail, which is not repeated in the body); an unavailable mail server is 503
 * email_unavailable. Anything else unchanged.
 */
export function asHttpRefusal(error: unknown): unknown {
  if (error instanceof BusinessMailUnavailableError) return new ApiError('email_unavailable', 'E-mail cannot be sent right now: try again later.');
  if (error instanceof DomainRefusal && !(error instanceof ApiError) && typeof error.details.retry_after === 'number') {
    const { retry_after, ...details } = error.details;
    return new ApiError(error.code, error.message, error.field, { 'retry-after': String(retry_after) }, details);
  }
  return error;
}
