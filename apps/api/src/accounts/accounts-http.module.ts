import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lib/core';
import { DashboardCookies } from '../auth/cookies';
import { MePasskeysController } from '../passkeys/me-passkeys.controller';
import { PasskeysController } from '../passkeys/passkeys.controller';
import { StepUpController } from '../passkeys/step-up.controller';
import { AccountsController } from './accounts.controller';
import { EmailChangesController, MeEmailController } from './email-changes.controller';
import { PasswordResetsController } from './password-resets.controller';
import { MeController } from './me.controller';
import { SessionsController } from './sessions.controller';
import { TwoFactorController, TwoFactorSignInController } from './two-factor.controller';

/** The account, session and /me routes over the accounts capability (AccountsModule, global: AppModule imports it). */
@Module({
  providers: [{ provide: DashboardCookies, useFactory: (config: AppConfig) => new DashboardCookies(config), inject: [APP_CONFIG] }],
  controllers: [AccountsController, TwoFactorSignInController, SessionsController, MeController, TwoFactorController, MePasskeysController, PasskeysController, StepUpController, PasswordResetsController, MeEmailController, EmailChangesController],
})
export class AccountsHttpModule {}
