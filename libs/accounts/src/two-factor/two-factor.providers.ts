import type { Provider } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { serviceKek } from '@lib/wallets';
import type { PeopleLimits } from '@lib/limits';
import { LimitsTwoStepCodes } from '../adapters/two-step-codes';
import { CompleteTwoFactorSignInHandler } from '../commands/complete-two-factor-sign-in/complete-two-factor-sign-in.handler';
import { DisableTwoFactorHandler } from '../commands/disable-two-factor/disable-two-factor.handler';
import { EnableTwoFactorHandler } from '../commands/enable-two-factor/enable-two-factor.handler';
import { StartTwoFactorSetupHandler } from '../commands/start-two-factor-setup/start-two-factor-setup.handler';
import { GetTwoFactorHandler } from '../queries/get-two-factor/get-two-factor.handler';
import { TWO_STEP_CODE_LIMIT, TwoStepCodeLimit } from './ports';
import { TOTP_VAULT, TotpVault, DatabaseTotpVault } from './totp-vault';
import { TwoFactorCodes } from './two-factor-codes';
import { TwoFactorSignIn } from './two-factor-sign-in';
import { TwoFactorWrites } from './two-factor-writes';

/** Two-step sign-in's use cases (decision 0036), registered by AccountsModule beside the others. */
export const TWO_FACTOR_HANDLERS = [StartTwoFactorSetupHandler, EnableTwoFactorHandler, DisableTwoFactorHandler, CompleteTwoFactorSignInHandler, GetTwoFactorHandler];
export const TWO_FACTOR_PROVIDERS: Provider[] = [TwoFactorWrites, TwoFactorCodes, TwoFactorSignIn];

/** Bindings of two-step sign-in's ports (each left out: its default). */
export interface TwoFactorOptions {
  totpVault?: TotpVault;
  twoStepCodeLimit?: TwoStepCodeLimit;
}

/**
 * The TOTP vault on the service's database, sealed under the wallets' key-encryption key
 * (WALLET_KEK / WALLET_KEK_FILE, or the embedded store's development key: the same loadKek);
 * the two-step code limit over libs/limits' PeopleLimits (the accounts module's instance, on its clock).
 */
export function twoFactorBindings(options: TwoFactorOptions, peopleLimits: symbol): Provider[] {
  return [
    {
      provide: TOTP_VAULT,
      useFactory: (config: AppConfig, db: Sql) =>
        options.totpVault ?? new DatabaseTotpVault(db, serviceKek(config)),
      inject: [APP_CONFIG, DATABASE],
    },
    { provide: TWO_STEP_CODE_LIMIT, useFactory: (limits: PeopleLimits) => options.twoStepCodeLimit ?? new LimitsTwoStepCodes(limits), inject: [peopleLimits] },
  ];
}
