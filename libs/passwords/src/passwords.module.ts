import { Module } from '@nestjs/common';
import { BREACH_CHECKER, BreachChecker, OfflineBreachList, PwnedPasswordsChecker } from './breach';
import { PasswordService } from './password.service';

export interface PasswordsOptions {
  /**
   * Where breached passwords are looked up: `pwned` (the Have I Been Pwned range API) or
   * `offline` (a fixed list: tests, and deployments without outbound network).
   */
  breachSource: 'pwned' | 'offline';
  /** Base URL of the range API (default https://api.pwnedpasswords.com). */
  pwnedPasswordsUrl?: string;
  /** The offline list's passwords (default none). */
  offlineBreached?: readonly string[];
}

export function breachCheckerFor(options: PasswordsOptions): BreachChecker {
  return options.breachSource === 'pwned'
    ? new PwnedPasswordsChecker({ baseUrl: options.pwnedPasswordsUrl })
    : new OfflineBreachList(options.offlineBreached ?? []);
}

/**
 * PasswordService for the accounts capability. `PasswordsModule.forRoot(options)`; the breach
 * checker is also exported (BREACH_CHECKER) so a test app can replace it.
 */
@Module({})
export class PasswordsModule {
  static forRoot(options: PasswordsOptions) {
    return {
      module: PasswordsModule,
      global: true,
      providers: [
        { provide: BREACH_CHECKER, useFactory: () => breachCheckerFor(options) },
        { provide: PasswordService, useFactory: (breaches: BreachChecker) => new PasswordService(breaches), inject: [BREACH_CHECKER] },
      ],
      exports: [BREACH_CHECKER, PasswordService],
    };
  }
}
