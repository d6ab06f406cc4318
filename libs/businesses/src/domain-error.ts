import { DomainRefusal } from '@lib/domain';

/** The codes a businesses-and-keys rule can refuse with (API error codes, spec §7). */
export type DomainErrorCode =
  | 'invalid_request'
  | 'not_found'
  | 'api_key_revoked'
  | 'publishable_key'
  | 'step_up_required'
  | 'business_suspended'
  | 'invalid_code'
  | 'code_expired'
  | 'verification_expired'
  | 'too_many_attempts'
  | 'too_many_emails'
  | 'referral_locked'
  | 'referral_code_taken';

/** A command refused by a business rule. Pure; the API's error filter renders it as is. */
export class DomainError extends DomainRefusal<DomainErrorCode> {
  override name = 'DomainError';
}
