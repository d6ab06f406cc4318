import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lib/core';
import { DashboardCookies } from '../auth/cookies';
import { AccountsController } from './accounts.controller';
import { EmailChangesController, MeEmailController } from './email-changes.controller';
import { PasswordResetsController } from './password-resets.controller';
import { MeController } from './me.controller';
import { SessionsController } from './sessions.controller';

/** The account, session and /me routes over the accounts capability (AccountsModule, global: AppModule imports it). */
@Module({
  providers: [{ provide: DashboardCookies, useFactory: (config: AppConfig) => new DashboardCookies(config), inject: [APP_CONFIG] }],
  controllers: [AccountsController, SessionsController, MeController, PasswordResetsController, MeEmailController, EmailChangesController],
})
export class AccountsHttpModule {}
