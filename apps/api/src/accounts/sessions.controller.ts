import { Body, Controller, Param, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EndSessionCommand, ListSessionsQuery, SignInCommand, SignInRequest } from '@lib/accounts';
import { DashboardCookies } from '../auth/cookies';
import { CurrentSession, SessionAuth, writeMeta } from '../auth/request-auth';
import { dataOf } from '../platform/openapi';
import { DeleteRoute, GetRoute } from '../platform/route-presets';
import { SignInRoute } from './sign-in-route';
import { browserOf, visitorMeta } from './browser';
import { SESSION_SCHEMA } from './schemas';
import { TWO_FACTOR_CHALLENGE_SCHEMA } from './two-factor-schemas';

/** Dashboard sessions (spec §5.5, §7, §8; decision 0034): sign in, list, end one, sign out. */
@ApiTags('sessions')
@Controller('sessions')
export class SessionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly cookies: DashboardCookies,
  ) {}

  @ApiOkResponse({ description: 'Two-step sign-in is on: no session yet, a challenge to answer at POST /sessions/two-factor (decision 0036).', schema: dataOf(TWO_FACTOR_CHALLENGE_SCHEMA) })
  @SignInRoute(undefined, {
    summary: 'Sign in with an e-mail address and a password',
    description:
      'Sets the session and device cookies. Wrong passwords per address lock sign-in for 1 minute after 5, 5 after 10, 15 after 15, an hour after 20 and every 5 more (429 `too_many_attempts`); after 100 the password stops working (403 `password_reset_required`); a browser that signed in before keeps its own count.',
    errors: ['invalid_credentials', 'too_many_attempts'],
    rateLimit: 'sessions.create',
    challenge: 'sign_in',
  })
  async signIn(@Body() body: SignInRequest, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const started = await this.commands.execute(new SignInCommand(body, browserOf(request, this.cookies), visitorMeta(request)));
    // two-step sign-in on: 200 and a challenge, no cookie (POST /sessions/two-factor answers it; decision 0036)
    if (!('sessionToken' in started)) {
      reply.status(200);
      return { data: started };
    }
    this.cookies.startSession(reply, started);
    return { data: started.answer };
  }

  @GetRoute(undefined, {
    summary: 'List the signed-in person’s sessions, the current one marked',
    list: [SESSION_SCHEMA, 'A page of the live sessions, newest first.', 'next_cursor of the previous page.'],
    access: 'account',
  })
  list(@CurrentSession() session: SessionAuth, @Query() query: Record<string, unknown>) {
    return this.queries.execute(new ListSessionsQuery(session.accountId, session.sessionId, query));
  }

  @DeleteRoute('current', {
    summary: 'Sign out: end the current session',
    description: 'Clears the session cookie.',
    data: [SESSION_SCHEMA, 'The session, as it was.'],
    access: 'account',
  })
  async signOut(@CurrentSession() session: SessionAuth, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const ended = await this.commands.execute(new EndSessionCommand(session.accountId, session.sessionId, session.sessionId, 'signed_out', writeMeta(request)));
    this.cookies.clear(reply, 'session');
    return { data: ended };
  }

  @DeleteRoute(':id', {
    summary: 'End another of the person’s sessions',
    description: 'The current session is 409 `current_session`: sign out instead (DELETE /sessions/current).',
    data: [SESSION_SCHEMA, 'The session, as it was.'],
    errors: ['current_session'],
    access: 'account',
  })
  async end(@CurrentSession() session: SessionAuth, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new EndSessionCommand(session.accountId, id, session.sessionId, 'revoked', writeMeta(request))) };
  }
}

