import { Body, Controller, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ChangePasswordCommand, ChangePasswordRequest, GetAccountQuery } from '@lib/accounts';
import { CurrentSession, SessionAuth, writeMeta } from '../auth/request-auth';
import { SteppedUp } from '../auth/step-up';
import { GetRoute, SensitiveAccountAction } from '../platform/route-presets';
import { ACCOUNT_SCHEMA } from './schemas';

/** The signed-in person (decision 0034): who they are, their businesses and roles, their password. */
@ApiTags('me')
@Controller('me')
export class MeController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @GetRoute(undefined, {
    summary: 'The signed-in person, the businesses they act for and their roles',
    data: [ACCOUNT_SCHEMA, 'The person.'],
    access: 'account',
  })
  async get(@CurrentSession() session: SessionAuth) {
    return { data: await this.queries.execute(new GetAccountQuery(session.accountId)) };
  }

  @SensitiveAccountAction('password', {
    summary: 'Change the password (the current one checked), or set a first one',
    description:
      'Ends every other session of the person. Wrong current passwords per session lock this for the same times as sign-in (429 `too_many_attempts`). An account without a password (a passkey sign-up) sets its first one leaving `current_password` out, with a step-up instead (403 `step_up_required` without one in the last 15 minutes).',
    data: [ACCOUNT_SCHEMA, 'The person.'],
    errors: ['invalid_credentials', 'weak_password', 'too_many_attempts', 'step_up_required'],
  })
  async changePassword(@CurrentSession() session: SessionAuth, @Body() body: ChangePasswordRequest, @SteppedUp() steppedUp: boolean, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new ChangePasswordCommand(session.accountId, session.sessionId, body, writeMeta(request), steppedUp)) };
  }
}
