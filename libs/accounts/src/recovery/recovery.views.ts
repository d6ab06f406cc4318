/** What the password-reset and e-mail-change routes answer (decision 0038). Never a token or a code. */

/** POST /password-resets: the same for every address, with an account or not. */
export interface PasswordResetRequestView {
  kind: 'password_reset_request';
  email: string;
}

/** A usable reset link (POST /password-resets/check), and the one used (POST /password-resets/confirm). */
export interface PasswordResetView {
  kind: 'password_reset';
  /** The account's address. */
  email: string;
  expires_at: string;
  /** No new password before this (an undone e-mail change), else null. */
  hold_until: string | null;
}

/** POST /me/email: the change waiting for the code e-mailed to the new address. */
export interface EmailChangeView {
  kind: 'email_change';
  id: string;
  email: string;
  /** Confirm before this (a day). */
  expires_at: string;
  /** The code works until this (15 minutes). */
  code_expires_at: string;
}

/** POST /email-changes/undo: the address put back, every session ended, every passkey removed, two-step sign-in off, a reset required. */
export interface EmailChangeUndoView {
  kind: 'email_change_undo';
  email: string;
  /** A new password can be set from this time (a day later). */
  reset_hold_until: string;
  /** How many passkeys were removed (all the account had). */
  passkeys_removed: number;
  /** Whether two-step sign-in was on and is now off. */
  two_factor_turned_off: boolean;
}
