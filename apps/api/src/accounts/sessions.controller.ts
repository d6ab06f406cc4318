import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EndSessionCommand, ListSessionsQuery, SignInCommand, SignInRequest } from '@lib/accounts';
import { RequiresChallenge } from '@lib/challenge';
import { AccountRoute, Public, SameOriginOnly } from '../auth/auth.decorators';
import { DashboardCookies } from '../auth/cookies';
import { CurrentSession, SessionAuth, writeMeta } from '../auth/request-auth';
import { IdempotencyKeyIgnored } from '../platform/idempotency.interceptor';
import { ApiErrors, dataOf } from '../platform/openapi';
import { RateLimit } from '../platform/rate-limit.guard';
import { listOf } from '../platform/resource-schemas';
import { browserOf, visitorMeta } from './browser';
import { SESSION_SCHEMA } from './schemas';

/** Dashboard sessions (spec §5.5, §7, §8; decision 0034): sign in, list, end one, sign out. */
@ApiTags('sessions')
@Controller('sessions')
export class SessionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly cookies: DashboardCookies,
  ) {}

  @ApiOperation({
    summary: 'Sign in with an e-mail address and a password',
    description:
      'Sets the session and device cookies. Wrong passwords per address lock sign-in for 1 minute after 5, 5 after 10, 15 after 15, an hour after 20 and every 5 more (429 `too_many_attempts`); after 100 the password stops working (403 `password_reset_required`); a browser that signed in before keeps its own count.',
  })
  @ApiCreatedResponse({ description: 'The new session.', schema: dataOf(SESSION_SCHEMA) })
  @ApiErrors('invalid_credentials', 'too_many_attempts', 'password_reset_required', 'cross_site_request')
  @Public()
  @SameOriginOnly()
  @RequiresChallenge('sign_in')
  @RateLimit('sessions.create')
  @IdempotencyKeyIgnored()
  @Post()
  async signIn(@Body() body: SignInRequest, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const started = await this.commands.execute(new SignInCommand(body, browserOf(request, this.cookies), visitorMeta(request)));
    this.cookies.set(reply, 'session', started.sessionToken);
    this.cookies.set(reply, 'device', started.deviceToken);
    return { data: started.answer };
  }

  @ApiOperation({ summary: 'List the signed-in person’s sessions, the current one marked' })
  @ApiOkResponse({ description: 'The live sessions, newest first (one page).', schema: listOf(SESSION_SCHEMA) })
  @ApiErrors('cross_site_request')
  @AccountRoute()
  @Get()
  list(@CurrentSession() session: SessionAuth) {
    return this.queries.execute(new ListSessionsQuery(session.accountId, session.sessionId));
  }

  @ApiOperation({ summary: 'Sign out: end the current session', description: 'Clears the session cookie.' })
  @ApiOkResponse({ description: 'The session, as it was.', schema: dataOf(SESSION_SCHEMA) })
  @ApiErrors('cross_site_request')
  @AccountRoute()
  @HttpCode(200)
  @Delete('current')
  async signOut(@CurrentSession() session: SessionAuth, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const ended = await this.commands.execute(new EndSessionCommand(session.accountId, session.sessionId, session.sessionId, 'signed_out', writeMeta(request)));
    this.cookies.clear(reply, 'session');
    return { data: ended };
  }

  @ApiOperation({ summary: 'End another of the person’s sessions', description: 'The current session is 409 `current_session`: sign out instead (DELETE /sessions/current).' })
  @ApiOkResponse({ description: 'The session, as it was.', schema: dataOf(SESSION_SCHEMA) })
  @ApiErrors('current_session', 'cross_site_request')
  @AccountRoute()
  @HttpCode(200)
  @Delete(':id')
  async end(@CurrentSession() session: SessionAuth, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new EndSessionCommand(session.accountId, id, session.sessionId, 'revoked', writeMeta(request))) };
  }
}

