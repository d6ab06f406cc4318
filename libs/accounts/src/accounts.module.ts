import { DynamicModule, Module, Provider } from '@nestjs/common';
import { LIMIT_STORE, LimitStore, LimitsModule, PeopleLimits } from '@lib/limits';
import { PasswordService, PasswordsModule, PasswordsOptions } from '@lib/passwords';
import { AccountsReadModel } from './accounts.read-model';
import { MAILER, Mailer } from '@lib/mail';
import { OperationsModule } from '@lib/operations';
import { LimitsEmailBudget, LimitsPasswordFailures, LimitsSignupCodes } from './adapters/limits';
import { MailerAccountMail } from './adapters/mail';
import { PasswordServicePasswords } from './adapters/passwords';
import { AccountStreams, AccountWrites } from './app/account-writes';
import { CodeMailer } from './app/code-mailer';
import { CurrentPassword } from './app/current-password';
import { SessionAuthenticator } from './app/session-authenticator';
import { SessionStarter } from './app/session-starter';
import { ChangePasswordHandler } from './commands/change-password/change-password.handler';
import { OpenBusinessHandler } from './commands/open-business/open-business.handler';
import { EndSessionHandler } from './commands/end-session/end-session.handler';
import { ResendSignupCodeHandler } from './commands/resend-signup-code/resend-signup-code.handler';
import { SignInHandler } from './commands/sign-in/sign-in.handler';
import { StartSignupHandler } from './commands/start-signup/start-signup.handler';
import { VerifySignupHandler } from './commands/verify-signup/verify-signup.handler';
import { TWO_FACTOR_HANDLERS, TWO_FACTOR_PROVIDERS, twoFactorBindings, TwoFactorOptions } from './two-factor/two-factor.providers';
import { StepUpCheck } from './passkeys/app/step-up-check';
import { PASSKEY_PROVIDERS } from './passkeys/passkeys.providers';
import {
  ACCOUNTS_CLOCK,
  ACCOUNT_MAIL,
  ACCOUNT_PASSWORDS,
  AccountMail,
  AccountPasswords,
  AccountsClock,
  EMAIL_BUDGET,
  EmailBudget,
  PASSWORD_FAILURES,
  PasswordFailures,
  SIGNUP_CODE_LIMIT,
  SignupCodeLimit,
} from './ports';
import { RecoveryOptions, recoveryProviders } from './recovery/recovery.providers';
import { GetAccountHandler } from './queries/get-account/get-account.handler';
import { ListSessionsHandler } from './queries/list-sessions/list-sessions.handler';

export const ACCOUNT_HANDLERS = [StartSignupHandler, VerifySignupHandler, ResendSignupCodeHandler, SignInHandler, EndSessionHandler, ChangePasswordHandler, OpenBusinessHandler, GetAccountHandler, ListSessionsHandler];

/** Bindings of the ports (each left out: its default). */
export interface AccountsOptions extends TwoFactorOptions, RecoveryOptions {
  clock?: AccountsClock;
  /** Where breached passwords are looked up (libs/passwords; default `offline`, an empty list). */
  breaches?: PasswordsOptions;
  mail?: AccountMail;
  passwords?: AccountPasswords;
  failures?: PasswordFailures;
  emailBudget?: EmailBudget;
  signupCodeLimit?: SignupCodeLimit;
}

/**
 * The accounts capability in a Nest app (decision 0034): its use cases for the buses, the
 * session authentication the API's guard asks, and the ports' bindings (MailModule's MAILER,
 * libs/limits' store, libs/passwords). Global, so the API's AuthGuard finds SessionAuthenticator.
 */
/** The PeopleLimits the accounts ports use (on ACCOUNTS_CLOCK, over LimitsModule's store). */
const PEOPLE_LIMITS = Symbol('ACCOUNTS_PEOPLE_LIMITS');

@Module({})
export class AccountsModule {
  static forRoot(options: AccountsOptions = {}): DynamicModule {
    const clock = options.clock ?? (() => new Date());
    const bindings: Provider[] = [
      { provide: ACCOUNTS_CLOCK, useValue: clock },
      // libs/limits' facade over its store (Redis or the database), on the accounts' clock
      { provide: PEOPLE_LIMITS, useFactory: (store: LimitStore) => new PeopleLimits(store, { time: clock }), inject: [LIMIT_STORE] },
      { provide: ACCOUNT_MAIL, useFactory: (mailer: Mailer) => options.mail ?? new MailerAccountMail(mailer), inject: [MAILER] },
      { provide: ACCOUNT_PASSWORDS, useFactory: (passwords: PasswordService) => options.passwords ?? new PasswordServicePasswords(passwords), inject: [PasswordService] },
      { provide: PASSWORD_FAILURES, useFactory: (limits: PeopleLimits) => options.failures ?? new LimitsPasswordFailures(limits), inject: [PEOPLE_LIMITS] },
      { provide: EMAIL_BUDGET, useFactory: (limits: PeopleLimits) => options.emailBudget ?? new LimitsEmailBudget(limits), inject: [PEOPLE_LIMITS] },
      { provide: SIGNUP_CODE_LIMIT, useFactory: (limits: PeopleLimits) => options.signupCodeLimit ?? new LimitsSignupCodes(limits), inject: [PEOPLE_LIMITS] },
      ...twoFactorBindings(options, PEOPLE_LIMITS),
    ];
    return {
      module: AccountsModule,
      global: true,
      imports: [LimitsModule, OperationsModule, PasswordsModule.forRoot(options.breaches ?? { breachSource: 'offline' })],
      providers: [...bindings, AccountsReadModel, AccountStreams, AccountWrites, CurrentPassword, CodeMailer, SessionStarter, SessionAuthenticator, ...ACCOUNT_HANDLERS, ...TWO_FACTOR_PROVIDERS, ...TWO_FACTOR_HANDLERS, ...PASSKEY_PROVIDERS, ...recoveryProviders(options)],
      exports: [SessionAuthenticator, StepUpCheck, AccountsReadModel, ACCOUNTS_CLOCK],
    };
  }
}
