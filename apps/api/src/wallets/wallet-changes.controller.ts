import { Body, Controller, Param, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Business } from '@lib/businesses';
import { ApiError } from '@lib/http';
import { CancelWalletChangeCommand, CancelWalletChangeRequest, FinishSetupCommand, GetSetupQuery } from '@lib/wallets';
import { visitorMeta } from '../accounts/browser';
import { CurrentBusiness, writeMeta } from '../auth/request-auth';
import { ActionRoute, GetRoute, emailedLink } from '../platform/route-presets';
import { BUSINESS_SETUP_SCHEMA, WALLET_CHANGE_SCHEMA } from './schemas';

/** Pending wallet changes (decision 0041): canceled through the e-mailed link, or from the dashboard. Thin. */
@ApiTags('wallet')
@Controller('wallet-changes')
export class WalletChangesController {
  constructor(private readonly commands: CommandBus) {}

  /** The link e-mailed to the owner: public (the link is the proof), same-origin, rule `tokens` (§8: 20 per 10 minutes with the other links). */
  @ActionRoute('cancel', {
    summary: 'Cancel a pending wallet deletion through the link e-mailed to the owner (no sign-in)',
    description:
      'The token is the one after `#token=` in the link. A used, replaced or unknown link is 400 `invalid_token`; a deletion that already took effect is 409 `wallet_change_applied`.',
    data: [WALLET_CHANGE_SCHEMA, 'The wallet change, canceled.'],
    ...emailedLink('wallet_change_applied'),
  })
  async cancelByLink(@Body() body: CancelWalletChangeRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new CancelWalletChangeCommand({ token: body.token }, visitorMeta(request))) };
  }

  @ActionRoute(':id/cancel', {
    summary: 'Cancel a pending wallet deletion from the dashboard (dashboard sessions only)',
    description:
      'Canceling a canceled change answers it as it is; a deletion that already took effect is 409 `wallet_change_applied`; another business’s change is 404.',
    id: 'wcr_…',
    data: [WALLET_CHANGE_SCHEMA, 'The wallet change, canceled.'],
    errors: ['not_found', 'wallet_change_applied'],
    access: ['wallet', 'write'],
    dashboardOnly: true,
  })
  async cancel(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new CancelWalletChangeCommand({ businessId: business.id, changeId: id }, writeMeta(request))) };
  }
}

/** The business's setup (decision 0041, issue 19 B16): read it, finish it (a wallet required). Thin. */
@ApiTags('business')
@Controller('businesses')
export class BusinessSetupController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @GetRoute(':id/setup', {
    summary: 'Whether the business is still in setup, and what finishing it needs',
    id: 'biz_…',
    data: [BUSINESS_SETUP_SCHEMA, 'The setup.'],
    errors: ['not_found'],
    access: ['business', 'read'],
  })
  async setup(@CurrentBusiness() business: Business, @Param('id') id: string) {
    ownBusiness(business, id);
    return { data: await this.queries.execute(new GetSetupQuery(business.id)) };
  }

  @ActionRoute(':id/finish-setup', {
    summary: 'Finish setup (dashboard sessions only): the business needs a wallet',
    description:
      'Without a wallet: 409 `wallet_required` (create, import or connect one with POST /wallet). Finishing again answers the same. Once finished, deleting the wallet always waits 24 hours.',
    id: 'biz_…',
    data: [BUSINESS_SETUP_SCHEMA, 'The setup, finished.'],
    errors: ['not_found', 'wallet_required'],
    access: ['business', 'write'],
    dashboardOnly: true,
  })
  async finish(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    ownBusiness(business, id);
    return { data: await this.commands.execute(new FinishSetupCommand(business.id, writeMeta(request))) };
  }
}

/** Another business's id (or an unknown one) is 404, as on PATCH /businesses/{id}. */
function ownBusiness(business: Business, id: string): void {
  if (id !== business.id) throw new ApiError('not_found', 'No business with this id.');
}
