import { Body, Controller, Param, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AddPasskeyCommand, AddPasskeyRequest, ListPasskeysQuery, type RelyingParty, RemovePasskeyCommand, StartPasskeyRegistrationCommand } from '@lib/accounts';
import { CurrentSession, SessionAuth, writeMeta } from '../auth/request-auth';
import { ActionRoute, CreateRoute, DeleteRoute, GetRoute } from '../platform/route-presets';
import { CurrentRelyingParty } from './relying-party';
import { CREATION_OPTIONS_SCHEMA, PASSKEY_SCHEMA } from './schemas';

/** The signed-in person's passkeys (decision 0037): add (after a step-up), list, remove (after a step-up). */
@ApiTags('me')
@Controller('me/passkeys')
export class MePasskeysController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @ActionRoute('registration/options', {
    summary: 'Start adding a passkey: the options for navigator.credentials.create()',
    description: 'Needs a step-up within 15 minutes. The challenge is valid five minutes, once, in this session. An account with 10 passkeys is 409 `passkey_limit`.',
    data: [CREATION_OPTIONS_SCHEMA, 'The WebAuthn creation options.'],
    errors: ['passkey_limit'],
    access: 'account',
    stepUp: true,
    rateLimit: 'me.passkeys',
    replay: false,
  })
  async options(@CurrentSession() session: SessionAuth, @CurrentRelyingParty() relyingParty: RelyingParty) {
    return { data: await this.commands.execute(new StartPasskeyRegistrationCommand(session.accountId, session.sessionId, relyingParty)) };
  }

  @CreateRoute(undefined, {
    summary: 'Add a passkey: the browser’s answer to the registration options',
    description:
      'Needs a step-up within 15 minutes. An answer that cannot be verified, or to no waiting options, is 400 `passkey_failed`; a passkey already on an account 409 `passkey_exists`; at most 10 per account (409 `passkey_limit`).',
    data: [PASSKEY_SCHEMA, 'The passkey.'],
    errors: ['passkey_failed', 'passkey_exists', 'passkey_limit'],
    access: 'account',
    stepUp: true,
    rateLimit: 'me.passkeys',
  })
  async add(@CurrentSession() session: SessionAuth, @Body() body: AddPasskeyRequest, @CurrentRelyingParty() relyingParty: RelyingParty, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new AddPasskeyCommand(session.accountId, session.sessionId, body, relyingParty, writeMeta(request))) };
  }

  @GetRoute(undefined, {
    summary: 'List the person’s passkeys',
    list: [PASSKEY_SCHEMA, 'A page of the passkeys (at most 10 in all), oldest first.', 'next_cursor of the previous page.'],
    access: 'account',
  })
  list(@CurrentSession() session: SessionAuth, @Query() query: Record<string, unknown>) {
    return this.queries.execute(new ListPasskeysQuery(session.accountId, query));
  }

  @DeleteRoute(':id', {
    summary: 'Remove a passkey',
    description: 'Needs a step-up within 15 minutes. Removing the only way left to sign in (no password, no other passkey) is 409 `last_sign_in_method`.',
    data: [PASSKEY_SCHEMA, 'The passkey, as it was.'],
    errors: ['last_sign_in_method'],
    access: 'account',
    stepUp: true,
  })
  async remove(@CurrentSession() session: SessionAuth, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new RemovePasskeyCommand(session.accountId, id, writeMeta(request))) };
  }
}
