import { DomainRefusal } from '@lib/domain';

/** The codes a webhook rule refuses with (API error codes, spec §7). */
export type WebhookErrorCode = 'invalid_request' | 'not_found' | 'permission_denied' | 'webhook_limit';

/** A webhook command or read refused by a rule; the API's error filter renders it as is. */
export class WebhookError extends DomainRefusal<WebhookErrorCode> {
  override name = 'WebhookError';
}
