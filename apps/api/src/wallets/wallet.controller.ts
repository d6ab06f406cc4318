import { Body, Controller, Delete, Get, Param, Post, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Business } from '@lib/businesses';
import { CreateWalletCommand, CreateWalletRequest, GetSendContextQuery, GetWalletQuery, GetWalletTransactionQuery, ListWalletTransactionsQuery, SendFromWalletCommand, SendFromWalletRequest } from '@lib/wallets';
import { DashboardOnly, RequiresPermission } from '../auth/auth.decorators';
import { CurrentBusiness, writeMeta } from '../auth/request-auth';
import { IdempotencyKeyIgnored, IdempotencyKeyRequired } from '../platform/idempotency.interceptor';
import { ApiErrors, dataOf } from '../platform/openapi';
import { ApiPage, CreateRoute, GetRoute } from '../platform/route-presets';
import { CREATED_WALLET_SCHEMA, SEND_CONTEXT_SCHEMA, WALLET_SCHEMA, WALLET_TRANSACTION_SCHEMA } from './schemas';

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

  /** §4: sends from the wallet belong to dashboard sessions; API keys get 403 session_required (decision 0040). */
  @ApiOperation({ summary: 'Send from the wallet: a signed transaction checked and relayed, or an external wallet’s record by hash (dashboard sessions only)' })
  @ApiCreatedResponse({ description: 'The wallet transaction, pending.', schema: dataOf(WALLET_TRANSACTION_SCHEMA) })
  @ApiErrors('session_required', 'not_found', 'invalid_address', 'insufficient_funds', 'insufficient_fee_funds', 'duplicate_transaction', 'transaction_rejected', 'network_unavailable')
  @DashboardOnly()
  @IdempotencyKeyRequired()
  @Post('transactions')
  async send(@CurrentBusiness() business: Business, @Body() body: SendFromWalletRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new SendFromWalletCommand(business, body, writeMeta(request))) };
  }

  @ApiOperation({ summary: 'What a dashboard needs to build and sign a send: nonce, fees per speed, funds available (dashboard sessions only)' })
  @ApiQuery({ name: 'network', required: true })
  @ApiQuery({ name: 'asset', required: true })
  @ApiQuery({ name: 'from', required: true, description: 'One of the wallet’s addresses.' })
  @ApiOkResponse({ description: 'The send context.', schema: dataOf(SEND_CONTEXT_SCHEMA) })
  @ApiErrors('session_required', 'not_found', 'invalid_address', 'network_unavailable')
  @DashboardOnly()
  @Get('send-context')
  async sendContext(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>) {
    return { data: await this.queries.execute(new GetSendContextQuery(business, query)) };
  }

  @ApiOperation({ summary: 'List the wallet’s transactions, newest first (filter: status)' })
  @ApiQuery({ name: 'status', required: false, description: 'pending, confirmed or failed.' })
  @ApiPage(WALLET_TRANSACTION_SCHEMA, 'A page of wallet transactions.', 'next_cursor of the previous page (bound to this list and its filter).')
  @RequiresPermission('wallet', 'read')
  @Get('transactions')
  listTransactions(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>) {
    return this.queries.execute(new ListWalletTransactionsQuery(business.id, query));
  }

  @ApiOperation({ summary: 'Follow a wallet transaction' })
  @ApiOkResponse({ description: 'The wallet transaction.', schema: dataOf(WALLET_TRANSACTION_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('wallet', 'read')
  @Get('transactions/:id')
  async getTransaction(@CurrentBusiness() business: Business, @Param('id') id: string) {
    return { data: await this.queries.execute(new GetWalletTransactionQuery(business.id, id)) };
  }
}
