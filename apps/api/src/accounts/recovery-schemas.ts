import type { SchemaObject } from '@nestjs/swagger';
import { int, nullable, ref, resource, str, timestamp } from '../platform/resource-schemas';

/** OpenAPI schemas of the password-reset and e-mail-change routes (decision 0038). */
export const PASSWORD_RESET_REQUEST_SCHEMA = ref('PasswordResetRequest');
export const PASSWORD_RESET_SCHEMA = ref('PasswordReset');
export const EMAIL_CHANGE_SCHEMA = ref('EmailChange');
export const EMAIL_CHANGE_UNDO_SCHEMA = ref('EmailChangeUndo');

export const RECOVERY_COMPONENTS: Record<string, SchemaObject> = {
  PasswordResetRequest: resource('password_reset_request', 'A reset asked for: the same answer whether or not an account uses the address (a link is e-mailed when one does).', { email: str }),
  PasswordReset: resource('password_reset', 'A password reset link.', {
    email: { ...str, description: 'The account’s address.' },
    expires_at: { ...timestamp, description: 'The link works until this (an hour after it was sent), once.' },
    hold_until: { ...nullable(timestamp), description: 'No new password before this (an undone e-mail change: 409 `reset_on_hold`), else null.' },
  }),
  EmailChange: resource('email_change', 'An e-mail change waiting for its code (POST /me/email/verify).', {
    id: { ...str, description: 'emc_…' },
    email: { ...str, description: 'The new address, which the code was e-mailed to.' },
    expires_at: { ...timestamp, description: 'Confirm before this (a day).' },
    code_expires_at: { ...timestamp, description: 'The code works until this (15 minutes).' },
  }),
  EmailChangeUndo: resource('email_change_undo', 'An undone e-mail change: every session ended, every passkey removed, two-step sign-in turned off, the password stopped working.', {
    email: { ...str, description: 'The address put back.' },
    reset_hold_until: { ...timestamp, description: 'A new password can be set from this time (POST /password-resets, then /password-resets/confirm).' },
    passkeys_removed: { ...int, minimum: 0, description: 'How many passkeys were removed: all the account had (whoever changed the address may have added them). Add them again after the reset.' },
    two_factor_turned_off: { type: 'boolean', description: 'Whether two-step sign-in was on and was turned off, its secret and recovery codes deleted. Turn it on again after the reset.' },
  }),
};
