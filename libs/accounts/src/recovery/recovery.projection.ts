import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import { emailKey } from '../email-key';
import { asRecoveryEvent } from './recovery.events';

/**
 * What the `accounts` projection does with decision 0038's events (called from its handler):
 * a changed or restored address moves the person's row (sign-in finds them by it); a required
 * reset puts a password hash no password matches, which sign-in answers 403
 * password_reset_required. The new password of a reset comes as AccountPasswordChanged.
 * Answers whether the event was one of these.
 */
export const RESET_REQUIRED_HASH = '!password_reset_required';

export async function projectRecoveryEvent(event: RecordedEvent, accountId: string, at: string, tx: Sql): Promise<boolean> {
  const e = asRecoveryEvent(event);
  if (e === null) return false;
  switch (e.type) {
    case 'AccountEmailChanged':
      await tx.query(`UPDATE accounts SET email = $2, email_key = $3, updated_at = $4 WHERE id = $1`, [accountId, e.data.new_email, emailKey(e.data.new_email), at]);
      break;
    case 'EmailChangeUndone':
      await tx.query(`UPDATE accounts SET email = $2, email_key = $3, updated_at = $4 WHERE id = $1`, [accountId, e.data.email, emailKey(e.data.email), at]);
      break;
    case 'PasswordResetRequired':
      await tx.query(`UPDATE accounts SET password_hash = $2, updated_at = $3 WHERE id = $1`, [accountId, RESET_REQUIRED_HASH, at]);
      break;
    default:
      break;
  }
  return true;
}
