import { Module } from '@nestjs/common';
import { LimitsModule, PeopleLimits } from '@lib/limits';
import { ALERT_EMAIL_LIMITS } from './business-mail';
import { PeopleAlertEmailLimits } from './people-alert-email-limits';
import { BusinessService } from './business.service';
import { API_KEY_CACHE } from './commands/api-key-cache';
import { ApiKeyWrites } from './commands/api-key-writes';
import { BusinessWrites } from './commands/business-writes';
import { ChangeCheckoutSettingsHandler } from './commands/change-checkout-settings/change-checkout-settings.handler';
import { CreateApiKeyHandler } from './commands/create-api-key/create-api-key.handler';
import { CreateBusinessHandler } from './commands/create-business/create-business.handler';
import { ReinstateBusinessHandler } from './commands/reinstate-business/reinstate-business.handler';
import { RevokeApiKeyHandler } from './commands/revoke-api-key/revoke-api-key.handler';
import { RollApiKeyHandler } from './commands/roll-api-key/roll-api-key.handler';
import { UpdateApiKeyHandler } from './commands/update-api-key/update-api-key.handler';
import { SuspendBusinessHandler } from './commands/suspend-business/suspend-business.handler';
import { GetBusinessHandler } from './queries/get-business/get-business.handler';
import { GetCheckoutSettingsHandler } from './queries/get-checkout-settings/get-checkout-settings.handler';
import { ConfirmAlertEmailHandler } from './commands/confirm-alert-email/confirm-alert-email.handler';
import { UpdateBusinessHandler } from './commands/update-business/update-business.handler';
import { GetReferralHandler } from './queries/get-referral/get-referral.handler';
import { HasReceivedFundsHandler } from './queries/has-received-funds/has-received-funds.handler';
import { ListApiKeysHandler } from './queries/list-api-keys/list-api-keys.handler';

/** The businesses capability's use cases, one handler each, for the CommandBus and QueryBus. */
export const BUSINESS_HANDLERS = [
  CreateBusinessHandler,
  CreateApiKeyHandler,
  RevokeApiKeyHandler,
  SuspendBusinessHandler,
  ReinstateBusinessHandler,
  ChangeCheckoutSettingsHandler,
  UpdateBusinessHandler,
  ConfirmAlertEmailHandler,
  UpdateApiKeyHandler,
  RollApiKeyHandler,
  GetBusinessHandler,
  GetCheckoutSettingsHandler,
  GetReferralHandler,
  HasReceivedFundsHandler,
  ListApiKeysHandler,
];

/**
 * The businesses use cases in a Nest app. The key and suspension commands tell the process's authentication
 * cache: the BusinessService the app provides (PlatformModule, global), which also runs the
 * same handlers for the operator's admin endpoint. The command handlers share BusinessWrites, the key ones ApiKeyWrites.
 */
@Module({
  imports: [LimitsModule],
  providers: [
    BusinessWrites,
    ApiKeyWrites,
    ...BUSINESS_HANDLERS,
    { provide: API_KEY_CACHE, useExisting: BusinessService },
    // §8 limits on new alert e-mails: per address always, per person once sessions name one (people-alert-email-limits.ts)
    { provide: ALERT_EMAIL_LIMITS, useFactory: (limits: PeopleLimits) => new PeopleAlertEmailLimits(limits), inject: [PeopleLimits] },
  ],
})
export class BusinessesModule {}
