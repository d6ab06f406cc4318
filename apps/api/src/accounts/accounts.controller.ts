import { Body, Controller, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type RelyingParty,
  ResendSignupCodeCommand,
  ResendSignupCodeRequest,
  SignupPasskeyOptionsRequest,
  StartSignupCommand,
  StartSignupPasskeyCommand,
  StartSignupRequest,
  VerifySignupCommand,
  VerifySignupRequest,
} from '@lib/accounts';
import { DashboardCookies } from '../auth/cookies';
import { ActionRoute, CreateRoute, publicForm } from '../platform/route-presets';
import { browserOf, visitorMeta } from './browser';
import { CREATION_OPTIONS_SCHEMA } from '../passkeys/schemas';
import { CurrentRelyingParty } from '../passkeys/relying-party';
import { SIGNUP_SCHEMA } from './schemas';
import { ref } from '../platform/resource-schemas';

/**
 * Sign-up (spec §5, §7, §8; decision 0034): thin — each route sends its use case's command
 * (libs/accounts) and answers `{data}`; the cookies are set here. The answers carry cookies, so
 * they are never stored for an Idempotency-Key.
 */
@ApiTags('accounts')
@Controller('accounts')
export class AccountsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly cookies: DashboardCookies,
  ) {}

  @CreateRoute(undefined, {
    summary: 'Sign up: a 6-digit code is e-mailed to the address',
    description:
      'Sets the sign-up cookie (the browser that may finish without the password again). An address an account holds is 409 `email_taken`; a new sign-up for the same address replaces a pending one. Past the address’s e-mail budget the answer is the same but nothing is sent. Without `password`, a passkey sign-up: finished in this browser only, with a passkey (POST /accounts/passkey-options, then POST /accounts/verify with `credential`).',
    data: [SIGNUP_SCHEMA, 'The pending sign-up.'],
    errors: ['weak_password', 'email_taken', 'email_unavailable'],
    ...publicForm('accounts.create', 'sign_up'),
  })
  async start(@Body() body: StartSignupRequest, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const { signup, signupToken } = await this.commands.execute(new StartSignupCommand(body, browserOf(request, this.cookies), visitorMeta(request)));
    this.cookies.set(reply, 'signup', signupToken);
    return { data: signup };
  }

  @CreateRoute('verify', {
    summary: 'Verify a sign-up with its code: the account, its first business and a session',
    description:
      'Sets the session and device cookies. In a browser without the sign-up cookie, the password chosen must be given again (400 `password_required`). A code is valid 15 minutes (400 `code_expired`); 5 wrong tries lock it until a new one is sent (429 `too_many_attempts`, Retry-After: until the locked code expires, when the answer becomes 400 `code_expired`); 10 wrong codes a day per address lock sign-up codes for it. A passkey sign-up is finished only in the browser that started it (400 `signup_browser_required`, before the code: no try spent), with `credential` and without `password` (400 `invalid_request`): the code first, then the registration (400 `passkey_failed` — nothing opened, no try spent; ask for new options); the account opens without a password, with that passkey, and the session’s method is `passkey`.',
    data: [ref('VerifiedSignup'), 'The account and its session.'],
    errors: ['verification_expired', 'invalid_code', 'code_expired', 'password_required', 'signup_browser_required', 'invalid_credentials', 'passkey_failed', 'passkey_exists', 'too_many_attempts', 'email_taken'],
    ...publicForm('accounts.verify'),
  })
  async verify(@Body() body: VerifySignupRequest, @CurrentRelyingParty() relyingParty: RelyingParty, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const verified = await this.commands.execute(new VerifySignupCommand(body, browserOf(request, this.cookies), visitorMeta(request), relyingParty));
    this.cookies.startSession(reply, verified);
    this.cookies.clear(reply, 'signup');
    return { data: verified.answer };
  }

  @ActionRoute('passkey-options', {
    summary: 'Start a passkey sign-up’s passkey: the options for navigator.credentials.create()',
    description:
      'For a sign-up started without a password, in the browser that started it (400 `signup_browser_required`); a sign-up with a password is 400 `invalid_request`. The challenge is bound to the sign-up, valid five minutes, once; a newer one replaces it. The user is the account the sign-up opens. Spends from the per-IP budget of POST /accounts/verify and /accounts/verify/resend.',
    data: [CREATION_OPTIONS_SCHEMA, 'The WebAuthn creation options.'],
    errors: ['verification_expired', 'signup_browser_required'],
    ...publicForm('accounts.verify'),
  })
  async passkeyOptions(@Body() body: SignupPasskeyOptionsRequest, @CurrentRelyingParty() relyingParty: RelyingParty, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new StartSignupPasskeyCommand(body.signup_id, browserOf(request, this.cookies), relyingParty)) };
  }

  @ActionRoute('verify/resend', {
    summary: 'Send a new sign-up code',
    description:
      'A minute after the last, at most 5 per sign-up, within the address’s e-mail budget (429 `too_many_emails`; Retry-After is the longest of the waits that hold). The earlier code stops working.',
    data: [SIGNUP_SCHEMA, 'The sign-up.'],
    errors: ['verification_expired', 'too_many_emails', 'email_unavailable'],
    ...publicForm('accounts.verify'),
  })
  async resend(@Body() body: ResendSignupCodeRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new ResendSignupCodeCommand(body, visitorMeta(request))) };
  }
}
