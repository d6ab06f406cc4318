import type { Provider } from '@nestjs/common';
import { CheckPasswordResetHandler } from '../commands/check-password-reset/check-password-reset.handler';
import { ConfirmPasswordResetHandler } from '../commands/confirm-password-reset/confirm-password-reset.handler';
import { RequestPasswordResetHandler } from '../commands/request-password-reset/request-password-reset.handler';
import { StartEmailChangeHandler } from '../commands/start-email-change/start-email-change.handler';
import { UndoEmailChangeHandler } from '../commands/undo-email-change/undo-email-change.handler';
import { VerifyEmailChangeHandler } from '../commands/verify-email-change/verify-email-change.handler';
import { RECOVERY_LINK_BASE, RECOVERY_MAIL, RecoveryMail, smtpRecoveryMail } from './recovery-mail';
import { RecoveryWrites } from './recovery-writes';

export const RECOVERY_HANDLERS = [RequestPasswordResetHandler, CheckPasswordResetHandler, ConfirmPasswordResetHandler, StartEmailChangeHandler, VerifyEmailChangeHandler, UndoEmailChangeHandler];

export interface RecoveryOptions {
  /** The reset and e-mail-change e-mails (default: SMTP at SMTP_URL). */
  recoveryMail?: RecoveryMail;
  /** Where the e-mailed links point (default: DASHBOARD_URL, else API_BASE_URL, else http://localhost:3000). */
  recoveryLinkBase?: string;
}

/** Password resets and e-mail changes in AccountsModule (decision 0038). */
export function recoveryProviders(options: RecoveryOptions): Provider[] {
  return [
    { provide: RECOVERY_MAIL, useFactory: () => options.recoveryMail ?? smtpRecoveryMail(process.env.SMTP_URL || null) },
    { provide: RECOVERY_LINK_BASE, useFactory: () => options.recoveryLinkBase ?? (process.env.DASHBOARD_URL || process.env.API_BASE_URL || 'http://localhost:3000') },
    RecoveryWrites,
    ...RECOVERY_HANDLERS,
  ];
}
