import { Body, Controller, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  CompleteTwoFactorSignInCommand,
  CompleteTwoFactorSignInRequest,
  DisableTwoFactorCommand,
  DisableTwoFactorRequest,
  EnableTwoFactorCommand,
  EnableTwoFactorRequest,
  GetTwoFactorQuery,
  StartTwoFactorSetupCommand,
} from '@lib/accounts';
import { DashboardCookies } from '../auth/cookies';
import { CurrentSession, SessionAuth, writeMeta } from '../auth/request-auth';
import { CreateRoute, GetRoute, SENSITIVE_ACCOUNT, SensitiveAccountAction } from '../platform/route-presets';
import { SignInRoute } from './sign-in-route';
import { browserOf, visitorMeta } from './browser';
import { TWO_FACTOR_ENABLED_SCHEMA, TWO_FACTOR_SCHEMA, TWO_FACTOR_SETUP_SCHEMA } from './two-factor-schemas';

/**
 * The signed-in person's two-step sign-in (spec §7, §8; decision 0036): see it, set it up (a
 * TOTP secret and its QR code, valid 10 minutes in this session), turn it on with a code and the
 * password (the recovery codes, once), turn it off with the password and a code. Thin: each
 * route sends its use case. The answers holding the secret and the recovery codes are `shownOnce`:
 * `Cache-Control: no-store`, never stored for an Idempotency-Key.
 */
@ApiTags('me')
@Controller('me/two-factor')
export class TwoFactorController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @GetRoute(undefined, {
    summary: 'The signed-in person’s two-step sign-in: on or off, recovery codes left',
    data: [TWO_FACTOR_SCHEMA, 'Two-step sign-in.'],
    access: 'account',
  })
  async get(@CurrentSession() session: SessionAuth) {
    return { data: await this.queries.execute(new GetTwoFactorQuery(session.accountId)) };
  }

  @CreateRoute('setup', {
    summary: 'Set up two-step sign-in: a new TOTP secret, its otpauth:// URI and QR code',
    description:
      'Valid 10 minutes, in this session only: turn it on with POST /me/two-factor. A new setup replaces the last. Already on: 409 `two_factor_enabled`. The secret is shown only in this answer and kept encrypted.',
    data: [TWO_FACTOR_SETUP_SCHEMA, 'The setup.'],
    errors: ['two_factor_enabled'],
    ...SENSITIVE_ACCOUNT,
    shownOnce: true,
  })
  async setup(@CurrentSession() session: SessionAuth, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new StartTwoFactorSetupCommand(session.accountId, session.email, session.sessionId, writeMeta(request))) };
  }

  @SensitiveAccountAction('', {
    summary: 'Turn two-step sign-in on: a code for the setup’s secret and the current password',
    description:
      'Answers ten recovery codes, shown once. Setup not started in this session or older than 10 minutes: 409 `two_factor_setup_required`; already on: 409 `two_factor_enabled`; wrong password: 400 `invalid_credentials`, counted per session with the same locks as sign-in (429 `too_many_attempts`); wrong code: 400 `invalid_code`.',
    data: [TWO_FACTOR_ENABLED_SCHEMA, 'Two-step sign-in, on, with its recovery codes.'],
    errors: ['two_factor_setup_required', 'two_factor_enabled', 'invalid_credentials', 'invalid_code', 'too_many_attempts'],
    shownOnce: true,
  })
  async enable(@CurrentSession() session: SessionAuth, @Body() body: EnableTwoFactorRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new EnableTwoFactorCommand(session.accountId, session.sessionId, body, writeMeta(request))) };
  }

  @SensitiveAccountAction('disable', {
    summary: 'Turn two-step sign-in off: the current password and a code or a recovery code',
    description:
      'Off already: 409 `two_factor_disabled`. Wrong password: 400 `invalid_credentials` (the session’s ladder); wrong code: 400 `invalid_code`, counted with sign-in’s codes (5 wrong lock codes 15 minutes: 429 `too_many_attempts`). The secret and recovery codes stop working.',
    data: [TWO_FACTOR_SCHEMA, 'Two-step sign-in, off.'],
    errors: ['two_factor_disabled', 'invalid_credentials', 'invalid_code', 'too_many_attempts'],
  })
  async disable(@CurrentSession() session: SessionAuth, @Body() body: DisableTwoFactorRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new DisableTwoFactorCommand(session.accountId, session.sessionId, body, writeMeta(request))) };
  }
}

/** The second step of sign-in (decision 0036): answer POST /sessions' challenge with a code. */
@ApiTags('sessions')
@Controller('sessions/two-factor')
export class TwoFactorSignInController {
  constructor(
    private readonly commands: CommandBus,
    private readonly cookies: DashboardCookies,
  ) {}

  @SignInRoute(undefined, {
    summary: 'Sign in, second step: the challenge and a code from the authenticator app or a recovery code',
    description:
      'Sets the session and device cookies, as sign-in does. A challenge is valid 5 minutes and answered once (400 `challenge_expired`); a wrong, reused or malformed code is 400 `invalid_code`; 5 wrong codes across the person’s challenges lock codes for 15 minutes (429 `too_many_attempts` with Retry-After). A TOTP code works once; each recovery code works once.',
    errors: ['challenge_expired', 'invalid_code', 'too_many_attempts'],
    rateLimit: 'sessions.two_factor',
  })
  async complete(@Body() body: CompleteTwoFactorSignInRequest, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const started = await this.commands.execute(new CompleteTwoFactorSignInCommand(body, browserOf(request, this.cookies), visitorMeta(request)));
    this.cookies.startSession(reply, started);
    return { data: started.answer };
  }
}
