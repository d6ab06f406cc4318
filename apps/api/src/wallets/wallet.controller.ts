import { Body, Controller, Delete, Post, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Business } from '@lib/businesses';
import { CreateWalletCommand, CreateWalletRequest, GetWalletQuery } from '@lib/wallets';
import { DashboardOnly } from '../auth/auth.decorators';
import { CurrentBusiness, writeMeta } from '../auth/request-auth';
import { IdempotencyKeyIgnored } from '../platform/idempotency.interceptor';
import { ApiErrors } from '../platform/openapi';
import { CreateRoute, GetRoute } from '../platform/route-presets';
import { CREATED_WALLET_SCHEMA, WALLET_SCHEMA } from './schemas';

/**
 * The business's wallet (decision 0024): create, import or connect it, and read it. Thin: each
 * route sends its use case's command or query.
 */
@ApiTags('wallet')
@Controller('wallet')
export class WalletController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  // §8.8: a response with a secret (the recovery phrase) is never kept for replay
  @IdempotencyKeyIgnored()
  @CreateRoute(undefined, { summary: "Create, import or connect the business's wallet", data: [CREATED_WALLET_SCHEMA, 'The wallet; a created one with its recovery phrase, shown this once.'], errors: ['wallet_exists'], access: ['wallet', 'write'], live: true })
  async create(@CurrentBusiness() business: Business, @Body() body: CreateWalletRequest, @Req() request: FastifyRequest) {
    const { wallet, recoveryPhrase } = await this.commands.execute(new CreateWalletCommand(business.id, body, writeMeta(request)));
    return { data: { ...wallet, recovery_phrase: recoveryPhrase } };
  }

  @GetRoute(undefined, { summary: "The business's wallet, the networks it receives on, its addresses in use", data: [WALLET_SCHEMA, 'The wallet.'], access: ['wallet', 'read'] })
  async get(@CurrentBusiness() business: Business) {
    return { data: await this.queries.execute(new GetWalletQuery(business.id)) };
  }

  /** §4: wallet deletion belongs to a dashboard session with a recent step-up; API keys get 403 session_required (sessions come with issue 14). */
  @ApiOperation({ summary: 'Delete the wallet (dashboard sessions only: 24-hour hold once the business has received a payment)' })
  @ApiErrors('session_required', 'step_up_required', 'wallet_change_pending')
  @DashboardOnly()
  @Delete()
  delete(): never {
    throw new Error('unreachable: dashboard sessions do not exist yet, and API keys are refused by the guard');
  }

  /** §4: sends from the wallet belong to dashboard sessions; API keys get 403 session_required (issue 15). */
  @ApiOperation({ summary: 'Send from the wallet (dashboard sessions only)' })
  @ApiErrors('session_required')
  @DashboardOnly()
  @Post('transactions')
  send(): never {
    throw new Error('unreachable: dashboard sessions do not exist yet, and API keys are refused by the guard');
  }
}
