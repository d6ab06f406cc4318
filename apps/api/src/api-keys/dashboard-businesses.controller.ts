import { Body, Controller, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { OpenBusinessCommand, OpenBusinessRequest } from '@lib/accounts';
import { AccountRoute } from '../auth/auth.decorators';
import { CurrentSession, SessionAuth, writeMeta } from '../auth/request-auth';
import { dataOf, schemaRef } from '../platform/openapi';

/**
 * A signed-in person creates a business (decision 0039): session only (@AccountRoute: no
 * Service-Business, API keys get 403 session_required); the person becomes its owner and can
 * name it in Service-Business at once. The operator's CLI keeps creating businesses its own way.
 */
@ApiTags('businesses')
@Controller('businesses')
export class DashboardBusinessesController {
  constructor(private readonly commands: CommandBus) {}

  @ApiOperation({
    summary: 'Create a business for the signed-in person, who becomes its owner',
    description: 'Session only. The business gets a secret and a publishable key whose secrets are not shown: create or roll a key (POST /api-keys) to get one.',
  })
  @ApiCreatedResponse({ description: 'The business.', schema: dataOf(schemaRef('Business')) })
  @AccountRoute()
  @Post()
  async create(@CurrentSession() session: SessionAuth, @Body() body: OpenBusinessRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new OpenBusinessCommand(session.accountId, body, writeMeta(request))) };
  }
}
