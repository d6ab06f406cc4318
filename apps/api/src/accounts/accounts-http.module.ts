import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lib/core';
import { DashboardCookies } from '../auth/cookies';
import { MePasskeysController } from '../passkeys/me-passkeys.controller';
import { PasskeysController } from '../passkeys/passkeys.controller';
import { StepUpController } from '../passkeys/step-up.controller';
import { AccountsController } from './accounts.controller';
import { MeController } from './me.controller';
import { SessionsController } from './sessions.controller';

/** The account, session and /me routes over the accounts capability (AccountsModule, global: AppModule imports it). */
@Module({
  providers: [{ provide: DashboardCookies, useFactory: (config: AppConfig) => new DashboardCookies(config), inject: [APP_CONFIG] }],
  controllers: [AccountsController, SessionsController, MeController, MePasskeysController, PasskeysController, StepUpController],
})
export class AccountsHttpModule {}
