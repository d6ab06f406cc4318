import { Body, Controller, Delete, Param, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '@lib/http';
import type { Business } from '@lib/businesses';
import { CreateWalletCommand, CreateWalletRequest, DeleteWalletCommand, RevealRecoveryPhraseCommand, GetSendContextQuery, GetWalletQuery, GetWalletTransactionQuery, ListWalletTransactionsQuery, SendFromWalletCommand, SendFromWalletRequest } from '@lib/wallets';
import { DashboardOnly } from '../auth/auth.decorators';
import { Auth, CurrentBusiness, RequestAuth, writeMeta } from '../auth/request-auth';
import { RequiresStepUp } from '../auth/step-up';
import { IdempotencyKeyRequired } from '../platform/idempotency.interceptor';
import { ApiErrors, dataOf } from '../platform/openapi';
import { ActionRoute, ApiPage, CreateRoute, GetRoute } from '../platform/route-presets';
import { CREATED_WALLET_SCHEMA, DELETED_WALLET_SCHEMA, RECOVERY_PHRASE_SCHEMA, SEND_CONTEXT_SCHEMA, WALLET_CHANGE_SCHEMA, WALLET_SCHEMA, WALLET_TRANSACTION_SCHEMA } from './schemas';

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

  // a created wallet's answer holds its recovery phrase (shownOnce: no-store, never kept for replay); §5.6: where
  // payments go, so a session needs a step-up within 15 minutes (API keys are never asked)
  @CreateRoute(undefined, {
    summary: "Create, import or connect the business's wallet",
    data: [CREATED_WALLET_SCHEMA, 'The wallet; a created one with its recovery phrase, shown this once.'],
    errors: ['wallet_exists'],
    access: ['wallet', 'write'],
    stepUp: true,
    live: true,
    shownOnce: true,
  })
  async create(@CurrentBusiness() business: Business, @Body() body: CreateWalletRequest, @Req() request: FastifyRequest) {
    const { wallet, recoveryPhrase } = await this.commands.execute(new CreateWalletCommand(business.id, body, writeMeta(request), business.simulated));
    return { data: { ...wallet, recovery_phrase: recoveryPhrase } };
  }

  @GetRoute(undefined, { summary: "The business's wallet, the networks it receives on, its addresses in use", data: [WALLET_SCHEMA, 'The wallet.'], access: ['wallet', 'read'] })
  async get(@CurrentBusiness() business: Business) {
    return { data: await this.queries.execute(new GetWalletQuery(business.id, business.simulated)) };
  }

  /**
   * §4 (decision 0041): a dashboard session with a step-up within 15 minutes; API keys get 403
   * session_required. In setup with nothing received: 200, the wallet removed at once. Otherwise
   * 202, a deletion pending 24 hours; the signed-in owner is e-mailed the link that cancels it.
   */
  @ApiOperation({
    summary: 'Delete the wallet (dashboard sessions with a recent step-up; a 24-hour hold once the business has received a payment or finished setup)',
    description:
      'A business still in setup that has received nothing loses its wallet at once (200). Otherwise the answer is 202 with a pending wallet change: the wallet keeps receiving until `effective_at` (24 hours later), the owner is e-mailed a link that cancels it without signing in (POST /wallet-changes/cancel), and it can be canceled from the dashboard (POST /wallet-changes/{id}/cancel); GET /wallet shows it as `pending_change`. Afterwards checkouts answer 409 `not_accepting`; funds stay on-chain and open checkouts keep their addresses.',
  })
  @ApiOkResponse({ description: 'The wallet, deleted at once (the business was in setup and had received nothing).', schema: dataOf(DELETED_WALLET_SCHEMA) })
  @ApiAcceptedResponse({ description: 'The wallet change: the deletion, pending for 24 hours.', schema: dataOf(WALLET_CHANGE_SCHEMA) })
  @ApiErrors('not_found', 'wallet_change_pending', 'email_unavailable')
  @RequiresStepUp()
  @DashboardOnly()
  @Delete()
  async delete(@Auth() auth: RequestAuth, @CurrentBusiness() business: Business, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    if (auth.kind !== 'session') throw new ApiError('session_required', 'Only a dashboard session can delete the wallet.');
    const result = await this.commands.execute(new DeleteWalletCommand({ id: business.id, name: business.name }, { email: auth.email }, writeMeta(request)));
    if (result.removed) return { data: result.deleted };
    reply.status(202);
    return { data: result.change };
  }

  /**
   * The recovery phrase of a wallet created or imported here, shown again (decision 0041
   * "Recovery phrase"; the spec names no route): a POST, so nothing caches or prefetches it, with
   * `Cache-Control: no-store` (shownOnce); a dashboard session of the business's owner with a step-up within
   * 15 minutes (API keys 403 session_required); 404 not_found without a wallet, 409
   * external_wallet for one that keeps its own keys. Each reveal is recorded on the wallet's
   * stream (who and when). Idempotency-Key is ignored: the phrase is never stored for replay.
   * Counted on the step-up's per-IP rule (me.sensitive).
   */
  @ActionRoute('recovery-phrase', {
    summary: 'Show the wallet’s recovery phrase (dashboard sessions of the owner with a recent step-up; wallets created or imported here)',
    description:
      'Answers the BIP-39 phrase the wallet was created with (the one shown once by POST /wallet) or imported from, with `Cache-Control: no-store`; every reveal is recorded on the wallet (who and when, never the phrase). An external wallet keeps its own keys: 409 `external_wallet`. `Idempotency-Key` is ignored: the answer is never stored or replayed.',
    data: [RECOVERY_PHRASE_SCHEMA, 'The recovery phrase.'],
    errors: ['permission_denied', 'not_found', 'external_wallet'],
    dashboardOnly: true,
    stepUp: true,
    rateLimit: 'me.sensitive',
    shownOnce: true,
  })
  async recoveryPhrase(@Auth() auth: RequestAuth, @CurrentBusiness() business: Business, @Req() request: FastifyRequest) {
    if (auth.kind !== 'session') throw new ApiError('session_required', 'Only a dashboard session can see the recovery phrase.');
    // owner is the only role today (decision 0034); a person with another role may not see the phrase
    if (auth.role !== 'owner') throw new ApiError('permission_denied', 'Only an owner of the business can see its recovery phrase.');
    return { data: await this.commands.execute(new RevealRecoveryPhraseCommand(business.id, auth.accountId, writeMeta(request))) };
  }

  /** §4: sends from the wallet belong to dashboard sessions; API keys get 403 session_required (decision 0040). */
  @IdempotencyKeyRequired()
  @CreateRoute('transactions', {
    summary: 'Send from the wallet: a signed transaction checked and relayed, or an external wallet’s record by hash (dashboard sessions only)',
    data: [WALLET_TRANSACTION_SCHEMA, 'The wallet transaction, pending.'],
    errors: ['not_found', 'invalid_address', 'insufficient_funds', 'insufficient_fee_funds', 'duplicate_transaction', 'transaction_rejected', 'network_unavailable'],
    dashboardOnly: true,
  })
  async send(@CurrentBusiness() business: Business, @Body() body: SendFromWalletRequest, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new SendFromWalletCommand(business, body, writeMeta(request))) };
  }

  @ApiQuery({ name: 'network', required: true })
  @ApiQuery({ name: 'asset', required: true })
  @ApiQuery({ name: 'from', required: true, description: 'One of the wallet’s addresses.' })
  @GetRoute('send-context', {
    summary: 'What a dashboard needs to build and sign a send: nonce, fees per speed, funds available (dashboard sessions only)',
    data: [SEND_CONTEXT_SCHEMA, 'The send context.'],
    errors: ['not_found', 'invalid_address', 'network_unavailable'],
    dashboardOnly: true,
  })
  async sendContext(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>) {
    return { data: await this.queries.execute(new GetSendContextQuery(business, query)) };
  }

  @ApiQuery({ name: 'status', required: false, description: 'pending, confirmed or failed.' })
  @ApiPage(WALLET_TRANSACTION_SCHEMA, 'A page of wallet transactions.', 'next_cursor of the previous page (bound to this list and its filter).')
  @GetRoute('transactions', { summary: 'List the wallet’s transactions, newest first (filter: status)', access: ['wallet', 'read'] })
  listTransactions(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>) {
    return this.queries.execute(new ListWalletTransactionsQuery(business.id, query));
  }

  @GetRoute('transactions/:id', {
    summary: 'Follow a wallet transaction',
    data: [WALLET_TRANSACTION_SCHEMA, 'The wallet transaction.'],
    errors: ['not_found'],
    access: ['wallet', 'read'],
  })
  async getTransaction(@CurrentBusiness() business: Business, @Param('id') id: string) {
    return { data: await this.queries.execute(new GetWalletTransactionQuery(business.id, id)) };
  }
}
