import { Body, Controller, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  CheckPasswordResetCommand,
  CheckPasswordResetRequest,
  ConfirmPasswordResetCommand,
  ConfirmPasswordResetRequest,
  RequestPasswordResetCommand,
  RequestPasswordResetRequest,
} from '@lib/accounts';
import { AcceptRoute, ActionRoute, emailedLink, publicForm } from '../platform/route-presets';
import { visitorMeta } from './browser';
import { PASSWORD_RESET_REQUEST_SCHEMA, PASSWORD_RESET_SCHEMA } from './recovery-schemas';

/** Password resets (spec §7, §8; decision 0038): ask for a link, check it, set the new password. Thin. */
@ApiTags('password-resets')
@Controller('password-resets')
export class PasswordResetsController {
  constructor(private readonly commands: CommandBus) {}

  @AcceptRoute(undefined, {
    summary: 'Ask for a password reset link',
    description:
      'The answer is the same whether or not an account uses the address. When one does, a link (valid an hour, once; a newer one replaces it) is e-mailed to it — at most 3 an hour and within the address’s e-mail budget; past them nothing is sent.',
    data: [PASSWORD_RESET_REQUEST_SCHEMA, 'Asked.'],
    ...publicForm('password_resets.create', 'password_reset'),
  })
  async request(@Body() body: RequestPasswordResetRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new RequestPasswordResetCommand(body, visitorMeta(request))) };
  }

  @ActionRoute('check', {
    summary: 'Check a password reset link before choosing the new password',
    data: [PASSWORD_RESET_SCHEMA, 'The link, usable.'],
    ...emailedLink(),
  })
  async check(@Body() body: CheckPasswordResetRequest) {
    return { data: await this.commands.execute(new CheckPasswordResetCommand(body.token)) };
  }

  @ActionRoute('confirm', {
    summary: 'Set a new password through a reset link',
    description:
      'Ends every session of the person and clears the failed-password count of the address (a password that stopped working after 100 failures works again). After an undone e-mail change, 409 `reset_on_hold` until a day has passed (`Retry-After`).',
    data: [PASSWORD_RESET_SCHEMA, 'The link, now used.'],
    ...emailedLink('weak_password', 'reset_on_hold'),
  })
  async confirm(@Body() body: ConfirmPasswordResetRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new ConfirmPasswordResetCommand(body, visitorMeta(request))) };
  }
}
