import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Business } from '@lib/businesses';
import { ArchiveLinkCommand, CreateLinkCommand, CreateLinkRequest, DeleteLinkCommand, GetLinkQuery, ListLinksQuery, RestoreLinkCommand, UpdateLinkCommand, UpdateLinkRequest } from '@lib/links';
import { LiveModeAction, RequiresPermission } from '../auth/auth.decorators';
import { CurrentBusiness, writeMeta } from '../auth/request-auth';
import { ApiErrors, dataOf } from '../platform/openapi';
import { ApiPage, PostAction } from '../platform/route-presets';
import { DELETED_LINK_SCHEMA, LINK_SCHEMA } from './schemas';

/**
 * Payment links (spec §1, §5.4, §7; decision 0030): thin — each route sends its use case's
 * command or query (libs/links) and answers `{data}`. Every change is refused to a test key on a
 * live business (403 test_mode_unavailable: links are what customers see and pay).
 */
@ApiTags('links')
@Controller('links')
export class LinksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiOperation({ summary: 'Create a payment link', description: 'A fixed price customers pay on the link’s hosted page (`url`); each checkout on it makes a payment with `link_id` set.' })
  @ApiCreatedResponse({ description: 'The link.', schema: dataOf(LINK_SCHEMA) })
  @RequiresPermission('links', 'write')
  @LiveModeAction()
  @Post()
  async create(@CurrentBusiness() business: Business, @Body() body: CreateLinkRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new CreateLinkCommand(business, body, writeMeta(request))) };
  }

  @ApiOperation({ summary: 'List links, newest first (filter: status)' })
  @ApiQuery({ name: 'status', required: false, description: 'active, archived or disabled.' })
  @ApiPage(LINK_SCHEMA, 'A page of links.', 'next_cursor of the previous page (bound to this list and its filter).')
  @RequiresPermission('links', 'read')
  @Get()
  list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>) {
    return this.queries.execute(new ListLinksQuery(business.id, query));
  }

  @ApiOperation({ summary: 'Retrieve a link' })
  @ApiOkResponse({ description: 'The link.', schema: dataOf(LINK_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('links', 'read')
  @Get(':id')
  async get(@CurrentBusiness() business: Business, @Param('id') id: string) {
    return { data: await this.queries.execute(new GetLinkQuery(business.id, id)) };
  }

  @ApiOperation({ summary: 'Change a link (send only what changes)', description: 'Payments already made keep what they were made with.' })
  @ApiOkResponse({ description: 'The link.', schema: dataOf(LINK_SCHEMA) })
  @ApiErrors('not_found', 'link_disabled')
  @RequiresPermission('links', 'write')
  @LiveModeAction()
  @Patch(':id')
  async update(@CurrentBusiness() business: Business, @Param('id') id: string, @Body() body: UpdateLinkRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new UpdateLinkCommand(business.id, id, body, writeMeta(request))) };
  }

  @ApiOperation({ summary: 'Archive a link: new checkouts on it answer 410 link_archived' })
  @ApiOkResponse({ description: 'The link.', schema: dataOf(LINK_SCHEMA) })
  @ApiErrors('not_found', 'link_disabled')
  @RequiresPermission('links', 'write')
  @LiveModeAction()
  @PostAction(':id/archive')
  async archive(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new ArchiveLinkCommand(business.id, id, writeMeta(request))) };
  }

  @ApiOperation({ summary: 'Restore an archived link', description: 'A link the service disabled cannot be restored (409 link_disabled).' })
  @ApiOkResponse({ description: 'The link.', schema: dataOf(LINK_SCHEMA) })
  @ApiErrors('not_found', 'link_disabled')
  @RequiresPermission('links', 'write')
  @LiveModeAction()
  @PostAction(':id/restore')
  async restore(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new RestoreLinkCommand(business.id, id, writeMeta(request))) };
  }

  @ApiOperation({ summary: 'Delete a link without payments', description: 'A link with payments cannot be deleted (409 link_has_payments): archive it.' })
  @ApiOkResponse({ description: 'The deleted link’s id.', schema: dataOf(DELETED_LINK_SCHEMA) })
  @ApiErrors('not_found', 'link_has_payments')
  @RequiresPermission('links', 'write')
  @LiveModeAction()
  @Delete(':id')
  async delete(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new DeleteLinkCommand(business.id, id, writeMeta(request))) };
  }
}
