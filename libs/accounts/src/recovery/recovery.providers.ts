import type { Provider } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lib/core';
import { MAILER, Mailer } from '@lib/mail';
import { CheckPasswordResetHandler } from '../commands/check-password-reset/check-password-reset.handler';
import { ConfirmPasswordResetHandler } from '../commands/confirm-password-reset/confirm-password-reset.handler';
import { RequestPasswordResetHandler } from '../commands/request-password-reset/request-password-reset.handler';
import { StartEmailChangeHandler } from '../commands/start-email-change/start-email-change.handler';
import { UndoEmailChangeHandler } from '../commands/undo-email-change/undo-email-change.handler';
import { VerifyEmailChangeHandler } from '../commands/verify-email-change/verify-email-change.handler';
import { MailerRecoveryMail, RECOVERY_LINK_BASE, RECOVERY_MAIL, RecoveryMail } from './recovery-mail';
import { RecoveryWrites } from './recovery-writes';

export const RECOVERY_HANDLERS = [RequestPasswordResetHandler, CheckPasswordResetHandler, ConfirmPasswordResetHandler, StartEmailChangeHandler, VerifyEmailChangeHandler, UndoEmailChangeHandler];

export interface RecoveryOptions {
  /** The reset and e-mail-change e-mails (default: over libs/mail's MAILER). */
  recoveryMail?: RecoveryMail;
  /** Where the e-mailed links point (default: DASHBOARD_URL, else API_BASE_URL, else http://localhost:3000). */
  recoveryLinkBase?: string;
}

/** Password resets and e-mail changes in AccountsModule (decision 0038). */
export function recoveryProviders(options: RecoveryOptions): Provider[] {
  return [
    { provide: RECOVERY_MAIL, useFactory: (mailer: Mailer) => options.recoveryMail ?? new MailerRecoveryMail(mailer), inject: [MAILER] },
    {
      provide: RECOVERY_LINK_BASE,
      useFactory: (config: AppConfig) => options.recoveryLinkBase ?? (process.env.DASHBOARD_URL || config.apiBaseUrl || 'http://localhost:3000'),
      inject: [APP_CONFIG],
    },
    RecoveryWrites,
    ...RECOVERY_HANDLERS,
  ];
}
