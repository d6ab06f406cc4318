import { ApiError } from '@lib/http';
import { DomainError } from './domain-error';

/** The API error for a refused business command: same code, message and field. */
export function toApiError(error: DomainError): ApiError {
  return ApiError.from(error);
}
