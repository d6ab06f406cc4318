import { Body, Controller, Param, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Business } from '@lib/businesses';
import { ArchiveLinkCommand, CreateLinkCommand, CreateLinkRequest, DeleteLinkCommand, GetLinkQuery, ListLinksQuery, RestoreLinkCommand, UpdateLinkCommand, UpdateLinkRequest } from '@lib/links';
import { CurrentBusiness, writeMeta } from '../auth/request-auth';
import { ActionRoute, ApiPage, ChangeRoute, CreateRoute, DeleteRoute, GetRoute, RouteSpec } from '../platform/route-presets';
import { DELETED_LINK_SCHEMA, LINK_SCHEMA } from './schemas';

/**
 * Payment links (spec §1, §5.4, §7; decision 0030): thin — each route sends its use case's
 * command or query (libs/links) and answers `{data}`. Every change is refused to a test key on a
 * live business (403 test_mode_unavailable: links are what customers see and pay).
 */
/** Change, archive, restore: a live-mode change of one link that answers the link. */
const linkChange = (summary: string, description?: string): RouteSpec => ({ summary, description, data: [LINK_SCHEMA, 'The link.'], errors: ['not_found', 'link_disabled'], access: ['links', 'write'], live: true });
/** A card-only link priced outside the card price (§8): no card could be charged it (decision 0030). */
const CARD_ONLY_PRICE = 'A link whose only rail is card is refused when its price is outside the card price of $5 to $10,000 (in its currency; 400 `amount_out_of_range`, field `amount`): a card is charged the price. A link that also takes crypto takes any payment amount.';

@ApiTags('links')
@Controller('links')
export class LinksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @CreateRoute(undefined, { summary: 'Create a payment link', description: `A fixed price customers pay on the link’s hosted page (\`url\`); each checkout on it makes a payment with \`link_id\` set. ${CARD_ONLY_PRICE}`, data: [LINK_SCHEMA, 'The link.'], errors: ['amount_out_of_range'], access: ['links', 'write'], live: true })
  async create(@CurrentBusiness() business: Business, @Body() body: CreateLinkRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new CreateLinkCommand(business, body, writeMeta(request))) };
  }

  @ApiQuery({ name: 'status', required: false, description: 'active, archived or disabled.' })
  @ApiPage(LINK_SCHEMA, 'A page of links.', 'next_cursor of the previous page (bound to this list and its filter).')
  @GetRoute(undefined, { summary: 'List links, newest first (filter: status)', access: ['links', 'read'] })
  list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>) {
    return this.queries.execute(new ListLinksQuery(business.id, query));
  }

  @GetRoute(':id', { summary: 'Retrieve a link', data: [LINK_SCHEMA, 'The link.'], errors: ['not_found'], access: ['links', 'read'] })
  async get(@CurrentBusiness() business: Business, @Param('id') id: string) {
    return { data: await this.queries.execute(new GetLinkQuery(business.id, id)) };
  }

  @ChangeRoute(':id', { ...linkChange('Change a link (send only what changes)', `Payments already made keep what they were made with. A body naming no field is 400 \`invalid_request\`. ${CARD_ONLY_PRICE}`), errors: ['not_found', 'link_disabled', 'amount_out_of_range'] })
  async update(@CurrentBusiness() business: Business, @Param('id') id: string, @Body() body: UpdateLinkRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new UpdateLinkCommand(business.id, id, body, writeMeta(request))) };
  }

  @ActionRoute(':id/archive', linkChange('Archive a link: new checkouts on it answer 410 link_archived'))
  async archive(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new ArchiveLinkCommand(business.id, id, writeMeta(request))) };
  }

  @ActionRoute(':id/restore', linkChange('Restore an archived link', 'A link the service disabled cannot be restored (409 link_disabled).'))
  async restore(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new RestoreLinkCommand(business.id, id, writeMeta(request))) };
  }

  @DeleteRoute(':id', { summary: 'Delete a link without payments', description: 'A link with payments cannot be deleted (409 link_has_payments): archive it.', data: [DELETED_LINK_SCHEMA, 'The deleted link’s id.'], errors: ['not_found', 'link_has_payments'], access: ['links', 'write'], live: true })
  async delete(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new DeleteLinkCommand(business.id, id, writeMeta(request))) };
  }
}
