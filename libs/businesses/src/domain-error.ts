/**
 * The codes a businesses-and-keys rule can refuse with. Each is an API error code (spec §7),
 * so the HTTP layer maps a DomainError one to one (see toApiError); `status` is that code's
 * HTTP status, for callers that answer without the API's error filter.
 */
export const DOMAIN_ERROR_STATUS = {
  invalid_request: 400,
  not_found: 404,
  api_key_revoked: 409,
  publishable_key: 409,
} as const;

export type DomainErrorCode = keyof typeof DOMAIN_ERROR_STATUS;

/** A command refused by a business rule. Pure: no HTTP or NestJS types. */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  readonly status: number;

  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** The input at fault, when there is one (`permissions`, `mode`, `name`). */
    readonly field: string | null = null,
  ) {
    super(message);
    this.status = DOMAIN_ERROR_STATUS[code];
  }
}
