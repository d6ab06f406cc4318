import { Body, Controller, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { type RelyingParty, StartStepUpCommand, StepUpCommand, StepUpRequest } from '@lib/accounts';
import { CurrentSession, SessionAuth, writeMeta } from '../auth/request-auth';
import { SensitiveAccountAction } from '../platform/route-presets';
import { CurrentRelyingParty } from './relying-party';
import { REQUEST_OPTIONS_SCHEMA, STEP_UP_SCHEMA } from './schemas';

/** Step-up (spec §5.6; decision 0037): the session proves its person again, for 15 minutes of sensitive changes. */
@ApiTags('sessions')
@Controller('sessions/current/step-up')
export class StepUpController {
  constructor(private readonly commands: CommandBus) {}

  @SensitiveAccountAction('options', {
    summary: 'Start a passkey step-up: the options for navigator.credentials.get()',
    description: 'An account without passkeys is 409 `no_passkeys` (step up with the password).',
    data: [REQUEST_OPTIONS_SCHEMA, 'The WebAuthn request options, naming the person’s passkeys.'],
    errors: ['no_passkeys'],
  })
  async options(@CurrentSession() session: SessionAuth, @CurrentRelyingParty() relyingParty: RelyingParty) {
    return { data: await this.commands.execute(new StartStepUpCommand(session.accountId, session.sessionId, relyingParty)) };
  }

  @SensitiveAccountAction('', {
    summary: 'Step up: prove it is you with the current password or a passkey',
    description:
      'Exactly one of `current_password` and `credential`. A wrong password is 400 `invalid_credentials`, counted on the session’s own ladder (429 `too_many_attempts`); another person’s passkey 400 `passkey_unknown`; an assertion that cannot be verified 400 `passkey_failed`. Valid 15 minutes.',
    data: [STEP_UP_SCHEMA, 'Until when sensitive changes are open to this session.'],
    errors: ['invalid_credentials', 'too_many_attempts', 'passkey_failed', 'passkey_unknown'],
  })
  async stepUp(@CurrentSession() session: SessionAuth, @Body() body: StepUpRequest, @CurrentRelyingParty() relyingParty: RelyingParty, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new StepUpCommand(session.accountId, session.sessionId, body, relyingParty, writeMeta(request))) };
  }
}
