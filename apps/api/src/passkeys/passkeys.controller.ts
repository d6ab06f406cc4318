import { Body, Controller, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PasskeySignInCommand, PasskeySignInRequest, type RelyingParty, StartPasskeySignInCommand } from '@lib/accounts';
import { DashboardCookies } from '../auth/cookies';
import { browserOf, visitorMeta } from '../accounts/browser';
import { ActionRoute, publicForm } from '../platform/route-presets';
import { SignInRoute } from '../accounts/sign-in-route';
import { CurrentRelyingParty } from './relying-party';
import { REQUEST_OPTIONS_SCHEMA } from './schemas';

/**
 * Sign-in with a passkey (decision 0037): options (a challenge bound to this browser by the
 * `webauthn` cookie), then the assertion → a session, with the cookies password sign-in sets.
 * Answers set cookies: never stored for an Idempotency-Key.
 */
@ApiTags('sessions')
@Controller('passkeys/authentication')
export class PasskeysController {
  constructor(
    private readonly commands: CommandBus,
    private readonly cookies: DashboardCookies,
  ) {}

  @ActionRoute('options', {
    summary: 'Start signing in with a passkey: the options for navigator.credentials.get()',
    description:
      'A sign-in: it needs a bot-challenge token (spec §5.9; the verify step needs none). Sets the `webauthn` cookie: the answer must come from this browser, within five minutes, once. Any of the person’s passkeys (discoverable credentials); user verification required.',
    data: [REQUEST_OPTIONS_SCHEMA, 'The WebAuthn request options.'],
    ...publicForm('passkeys.authentication', 'sign_in'),
  })
  async options(@CurrentRelyingParty() relyingParty: RelyingParty, @Res({ passthrough: true }) reply: FastifyReply) {
    const { options, browserToken } = await this.commands.execute(new StartPasskeySignInCommand(relyingParty));
    this.cookies.set(reply, 'webauthn', browserToken);
    return { data: options };
  }

  @SignInRoute('verify', {
    summary: 'Sign in with a passkey: the browser’s answer to the options',
    description:
      'Sets the session and device cookies. A passkey on no account is 400 `passkey_unknown`; an answer that cannot be verified, from another browser, to used or expired options, or with a counter that did not grow, 400 `passkey_failed`. After an undone e-mail change, no session until the password is reset (403 `password_reset_required`).',
    errors: ['passkey_failed', 'passkey_unknown'],
    rateLimit: 'passkeys.authentication',
  })
  async verify(@Body() body: PasskeySignInRequest, @CurrentRelyingParty() relyingParty: RelyingParty, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const browserToken = this.cookies.read(request, 'webauthn');
    this.cookies.clear(reply, 'webauthn');
    const started = await this.commands.execute(new PasskeySignInCommand(body, browserToken, browserOf(request, this.cookies), relyingParty, visitorMeta(request)));
    this.cookies.startSession(reply, started);
    return { data: started.answer };
  }
}
