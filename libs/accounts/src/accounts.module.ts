import { DynamicModule, Module, Provider } from '@nestjs/common';
import { AccountsReadModel } from './accounts.read-model';
import { Argon2Passwords, MemoryEmailBudget, MemoryPasswordFailures, MemorySignupCodeLimit, PermissiveChallenge, SmtpAccountMail } from './adapters/interim';
import { AccountWrites } from './app/account-writes';
import { CodeMailer } from './app/code-mailer';
import { SessionAuthenticator } from './app/session-authenticator';
import { SessionStarter } from './app/session-starter';
import { ChangePasswordHandler } from './commands/change-password/change-password.handler';
import { EndSessionHandler } from './commands/end-session/end-session.handler';
import { ResendSignupCodeHandler } from './commands/resend-signup-code/resend-signup-code.handler';
import { SignInHandler } from './commands/sign-in/sign-in.handler';
import { StartSignupHandler } from './commands/start-signup/start-signup.handler';
import { VerifySignupHandler } from './commands/verify-signup/verify-signup.handler';
import {
  ACCOUNTS_CLOCK,
  ACCOUNT_MAIL,
  ACCOUNT_PASSWORDS,
  AccountMail,
  AccountPasswords,
  AccountsClock,
  CHALLENGE_CHECK,
  ChallengeCheck,
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

export const ACCOUNT_HANDLERS = [StartSignupHandler, VerifySignupHandler, ResendSignupCodeHandler, SignInHandler, EndSessionHandler, ChangePasswordHandler, GetAccountHandler, ListSessionsHandler];

/** Bindings of the ports (each left out: its default). */
export interface AccountsOptions extends RecoveryOptions {
  clock?: AccountsClock;
  mail?: AccountMail;
  passwords?: AccountPasswords;
  failures?: PasswordFailures;
  emailBudget?: EmailBudget;
  signupCodeLimit?: SignupCodeLimit;
  challenge?: ChallengeCheck;
}

/**
 * The accounts capability in a Nest app (decision 0034): its use cases for the buses, the
 * session authentication the API's guard asks, and the ports' bindings. Global, so the API's
 * AuthGuard finds SessionAuthenticator and the controllers CHALLENGE_CHECK.
 */
@Module({})
export class AccountsModule {
  static forRoot(options: AccountsOptions = {}): DynamicModule {
    const clock = options.clock ?? (() => new Date());
    const bindings: Provider[] = [
      { provide: ACCOUNTS_CLOCK, useValue: clock },
      { provide: ACCOUNT_MAIL, useFactory: () => options.mail ?? new SmtpAccountMail(process.env.SMTP_URL || null) },
      { provide: ACCOUNT_PASSWORDS, useFactory: () => options.passwords ?? new Argon2Passwords() },
      { provide: PASSWORD_FAILURES, useFactory: () => options.failures ?? new MemoryPasswordFailures(clock) },
      { provide: EMAIL_BUDGET, useFactory: () => options.emailBudget ?? new MemoryEmailBudget(clock) },
      { provide: SIGNUP_CODE_LIMIT, useFactory: () => options.signupCodeLimit ?? new MemorySignupCodeLimit(clock) },
      { provide: CHALLENGE_CHECK, useFactory: () => options.challenge ?? new PermissiveChallenge() },
    ];
    return {
      module: AccountsModule,
      global: true,
      providers: [...bindings, AccountsReadModel, AccountWrites, CodeMailer, SessionStarter, SessionAuthenticator, ...ACCOUNT_HANDLERS, ...recoveryProviders(options)],
      exports: [SessionAuthenticator, AccountsReadModel, ACCOUNTS_CLOCK, CHALLENGE_CHECK],
    };
  }
}
