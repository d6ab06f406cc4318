import { DomainRefusal, ErrorCode } from '@lib/domain';

export { ERROR_STATUS } from '@lib/domain';
export type { ErrorCode } from '@lib/domain';

/**
 * The one error type of the API: a refusal (code, status, message, field, details) plus the
 * response headers it needs. The error filter turns it, and any DomainRefusal a decider
 * throws, into `{error: {code, message, field, request_id}}`.
 */
export class ApiError extends DomainRefusal {
  override name = 'ApiError';

  constructor(
    code: ErrorCode,
    message: string,
    field: string | null = null,
    /** Extra response headers (Retry-After, WWW-Authenticate). */
    readonly headers: Record<string, string> = {},
    /** Extra members of the error object (for example the time a quote ends). */
    details: Record<string, unknown> = {},
  ) {
    super(code, message, field, details);
  }

  /** The API error for a domain refusal: same code, message, field and details. */
  static from(refusal: DomainRefusal): ApiError {
    return refusal instanceof ApiError ? refusal : new ApiError(refusal.code, refusal.message, refusal.field, {}, refusal.details);
  }
}

export function invalidRequest(field: string, message: string): ApiError {
  return new ApiError('invalid_request', message, field);
}

export function notFound(what = 'nothing with that id for this business'): ApiError {
  return new ApiError('not_found', what.charAt(0).toUpperCase() + what.slice(1) + '.');
}
