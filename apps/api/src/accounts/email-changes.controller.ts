import { Body, Controller, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { StartEmailChangeCommand, StartEmailChangeRequest, UndoEmailChangeCommand, UndoEmailChangeRequest, VerifyEmailChangeCommand, VerifyEmailChangeRequest } from '@lib/accounts';
import { CurrentSession, SessionAuth, writeMeta } from '../auth/request-auth';
import { SteppedUp } from '../auth/step-up';
import { ActionRoute, CreateRoute, emailedLink } from '../platform/route-presets';
import { visitorMeta } from './browser';
import { EMAIL_CHANGE_SCHEMA, EMAIL_CHANGE_UNDO_SCHEMA } from './recovery-schemas';
import { ACCOUNT_SCHEMA } from './schemas';

/** Changing the signed-in person's e-mail address (spec §7, §8; decision 0038): start, confirm with the code. Thin. */
@ApiTags('me')
@Controller('me/email')
export class MeEmailController {
  constructor(private readonly commands: CommandBus) {}

  @CreateRoute(undefined, {
    summary: 'Change the e-mail address: a 6-digit code is e-mailed to the new one',
    description:
      'The current password is checked (wrong ones count on the session’s own ladder: 429 `too_many_attempts`); an account without a password (a passkey sign-up) leaves `current_password` out and needs a step-up instead (403 `step_up_required`). At most 3 changes started per person an hour, and a new code to the address already pending a minute after the last (429 `too_many_emails`, Retry-After the longer wait); another address is a new change. A new change replaces a pending one. Past the new address’s e-mail budget the answer is the same but nothing is sent.',
    data: [EMAIL_CHANGE_SCHEMA, 'The change, waiting for its code.'],
    errors: ['invalid_credentials', 'email_taken', 'too_many_emails', 'too_many_attempts', 'email_unavailable', 'step_up_required'],
    access: 'account',
    rateLimit: 'me.email',
    replay: false,
  })
  async start(@CurrentSession() session: SessionAuth, @Body() body: StartEmailChangeRequest, @SteppedUp() steppedUp: boolean, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new StartEmailChangeCommand(session.accountId, session.sessionId, body, writeMeta(request), steppedUp)) };
  }

  @ActionRoute('verify', {
    summary: 'Confirm the e-mail change with its code',
    description:
      'The code is valid 15 minutes (400 `code_expired`); 5 wrong tries lock it (429 `too_many_attempts`: start again; Retry-After: until the locked code expires, when the answer becomes 400 `code_expired`); the change lives a day. Once changed, the old address receives a link that undoes it (POST /email-changes/undo).',
    data: [ACCOUNT_SCHEMA, 'The person, with the new address.'],
    errors: ['verification_expired', 'invalid_code', 'code_expired', 'too_many_attempts', 'email_taken', 'email_unavailable'],
    access: 'account',
    replay: false,
  })
  async verify(@CurrentSession() session: SessionAuth, @Body() body: VerifyEmailChangeRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new VerifyEmailChangeCommand(session.accountId, body, writeMeta(request))) };
  }
}

/** The undo link e-mailed to the old address (decision 0038): public, the link is the proof. */
@ApiTags('email-changes')
@Controller('email-changes')
export class EmailChangesController {
  constructor(private readonly commands: CommandBus) {}

  @ActionRoute('undo', {
    summary: 'Undo an e-mail change through the link e-mailed to the old address',
    description:
      'Puts the old address back and ends every session. Whoever changed the address may have added a way in, so every passkey of the account is removed (a passkey sign-in then answers 400 `passkey_unknown`) and two-step sign-in is turned off (its secret and recovery codes deleted); the answer says what was removed, and the owner adds them again after the reset. The password stops working (403 `password_reset_required` at sign-in) and a new one can be set through a reset link only after a day (409 `reset_on_hold`).',
    data: [EMAIL_CHANGE_UNDO_SCHEMA, 'The change, undone.'],
    ...emailedLink('email_taken'),
  })
  async undo(@Body() body: UndoEmailChangeRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new UndoEmailChangeCommand(body.token, visitorMeta(request))) };
  }
}
