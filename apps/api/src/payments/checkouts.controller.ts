import { Body, Controller, Inject, Param, Req } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lib/core';
import { Command, CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  ActingFor,
  CancelCheckoutCommand,
  ClaimCheckoutCommand,
  ClaimCheckoutRequest,
  GetCheckoutQuery,
  MarkSentCommand,
  MarkSentRequest,
  OpenCheckoutCommand,
  OpenCheckoutRequest,
  StartCardAttemptCommand,
  StartCardAttemptRequest,
  ConfirmCardAttemptCommand,
  SupersedeCheckoutCommand,
} from '@lib/payments';
import { LiveModeAction } from '../auth/auth.decorators';
import { Auth, RequestAuth, accessOf, businessOf, writeMeta } from '../auth/request-auth';
import { IdempotencyKeyRequired } from '../platform/idempotency.interceptor';
import { ActionRoute, CreateRoute, GetRoute, RouteSpec } from '../platform/route-presets';
import { CHECKOUT_SCHEMA } from './schemas';

/**
 * Checkouts (spec §4): public routes a checkout page calls. With the owning business's secret
 * key, or a dashboard session acting for it (cookie and Service-Business: a secret key's reach,
 * decision 0034 addendum of 2026-11-29), the checkout gains `email`, `reporting` and
 * `fee_rate_bps` (§2). A secret or restricted key or such a session acts as its business here
 * too: another business's checkout is 404 not_found (and another business's payment code on POST
 * /checkouts 404 payment_not_found); no credentials, a publishable key or a session cookie
 * without Service-Business (which the guard leaves anonymous) act on any checkout by its id.
 * Thin: each route sends its use case's command, then reads the checkout (GetCheckoutQuery).
 */
/** POST /checkouts, told at length. */
const OPEN_DESCRIPTION =
  'A crypto checkout locks a rate: a simulated business’s from a fixed table, a live business’s from the live exchange-rate source, never older than its freshness bound; without a fresh price the answer is 503 `temporarily_unavailable` and nothing is opened. `crypto.rate` names the source and the time of the price.\n\n' +
  'A card checkout (`rail: card`) needs `email` (or the payment’s `customer_email`; else 400 `email_required`) and `country` (it decides which card processors — the checkout’s routes — can take the card: 400 `rail_unavailable` with `field` `country` where none does, `field` `rail` for a business that takes no card); `asset`, `network` and `simulate` are refused. What the card is charged (`breakdown.total`, in the payment’s currency) must be 5 to 10,000 in major units (400 `amount_out_of_range`). With `replaces` naming a card checkout, the new one continues on the routes that checkout has not used.\n\n' +
  'With `link_code` (a payment link’s code, decision 0030) the checkout makes the link’s payment (`link_id` set, payment `url` null), with or without an e-mail; `replaces` naming a checkout of the same link carries its pending payment over. An unknown, deleted or disabled link is 404 `link_not_found`, an archived one 410 `link_archived`.\n\n' +
  'While a transfer to one of the payment’s quotes is confirming, no other checkout opens (409 `payment_in_flight`: the money on its way may pay it); `replaces` naming that quote with the same choice answers it as it is, so a page reloaded mid-transfer follows it. Once funds reached the payment (409 `payment_paid`), `replaces` naming the quote that received a short transfer, with the same choice, answers that quote (`awaiting_customer`, the same address and what is left) while more than two minutes of it are left.';

/** What every checkout route answers, to any caller: the checkout. */
const onCheckout = { data: [CHECKOUT_SCHEMA, 'The checkout.'], access: 'public' } satisfies Partial<RouteSpec>;

@ApiTags('checkouts')
@Controller('checkouts')
export class CheckoutsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @LiveModeAction()
  @IdempotencyKeyRequired()
  @CreateRoute(undefined, { summary: 'Open a checkout (one attempt to pay a payment)', description: OPEN_DESCRIPTION, ...onCheckout, errors: [ 'email_required', 'invalid_email', 'rail_unavailable', 'asset_unavailable', 'amount_out_of_range', 'customer_blocked', 'business_suspended', 'link_not_found', 'payment_not_found', 'not_accepting', 'payment_paid', 'payment_in_flight', 'payment_canceled', 'payment_expired', 'link_archived', 'temporarily_unavailable', ], rateLimit: 'checkouts.create' })
  async open(@Body() body: OpenCheckoutRequest, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    const acting = businessOf(auth);
    const caller = acting !== null ? { id: acting.id, simulated: acting.simulated, status: acting.status } : null;
    const { checkoutId } = await this.commands.execute(new OpenCheckoutCommand(body, caller, writeMeta(request)));
    return { data: await this.checkout(checkoutId, auth) };
  }

  @GetRoute(':id', { summary: 'Retrieve a checkout', ...onCheckout })
  async get(@Param('id') id: string, @Auth() auth: RequestAuth) {
    return { data: await this.checkout(id, auth) };
  }

  @ActionRoute(':id/cancel', { summary: 'Cancel an open or awaiting_customer checkout (the customer leaves)', ...onCheckout, errors: ['checkout_not_cancelable'] })
  async cancel(@Param('id') id: string, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    return this.change(new CancelCheckoutCommand(id, actingFor(auth), writeMeta(request)), id, auth);
  }

  @ActionRoute(':id/supersede', { summary: 'Set a checkout aside for a new one (it stays watched until it expires)', ...onCheckout, errors: ['checkout_not_supersedable'] })
  async supersede(@Param('id') id: string, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    return this.change(new SupersedeCheckoutCommand(id, actingFor(auth), writeMeta(request)), id, auth);
  }

  @IdempotencyKeyRequired()
  @CreateRoute(':id/card-attempts', { summary: 'Start a card attempt on the checkout’s current route (the processor’s secure page)', description: 'Card checkouts only. The processor of the checkout’s `card.route` creates its secure page: the checkout becomes `awaiting_customer` with `card.attempt` pending and its `secure_url`; the processor sends the customer back to the checkout page (`?s=<checkout>&attempt=<attempt>`), which then calls confirm. A checkout that failed on a decline or a timeout takes its next attempt on the next route. While a crypto transfer to the payment is on its way: 409 `payment_in_flight` (it decides the payment). 503 `upstream_unavailable`: the processor cannot be reached; nothing was started, retry with the same Idempotency-Key.', ...onCheckout, errors: ['wrong_rail', 'checkout_not_awaiting', 'payment_in_flight', 'stale_route', 'route_in_progress', 'checkout_not_retryable', 'no_route', 'temporarily_unavailable', 'upstream_unavailable'], rateLimit: 'checkouts.create' })
  async startCardAttempt(@Param('id') id: string, @Body() body: StartCardAttemptRequest, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    const origin = this.config.apiBaseUrl ?? `${request.protocol}://${request.host}`;
    await this.commands.execute(new StartCardAttemptCommand(id, body ?? {}, actingFor(auth), origin, writeMeta(request)));
    return { data: await this.checkout(id, auth) };
  }

  @ActionRoute(':id/card-attempts/:attempt_id/confirm', { summary: 'Record what the processor says of a card attempt (the customer came back from the secure page)', description: 'Asks the attempt’s processor for its result and records it: succeeded → the checkout completes (or, on a checkout canceled meanwhile, goes to needs_review); declined → failed with the decline code. Unchanged while the processor has no result, or when the result is recorded already.', ...onCheckout, errors: ['wrong_rail', 'stale_route', 'checkout_not_awaiting', 'upstream_unavailable'] })
  async confirmCardAttempt(@Param('id') id: string, @Param('attempt_id') attemptId: string, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    return this.change(new ConfirmCardAttemptCommand(id, attemptId, actingFor(auth), writeMeta(request)), id, auth);
  }

  @ActionRoute(':id/claim', { summary: 'Claim a transfer sent after the checkout closed (the business reviews it)', ...onCheckout, errors: ['invalid_tx_hash', 'invalid_email', 'wrong_rail', 'payment_paid', 'already_claimed', 'checkout_not_claimable'] })
  async claim(@Param('id') id: string, @Body() body: ClaimCheckoutRequest, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    return this.change(new ClaimCheckoutCommand(id, body, actingFor(auth), writeMeta(request)), id, auth);
  }

  @ActionRoute(':id/mark-sent', { summary: 'Simulated businesses: send the transfer now (exact, underpaid, overpaid, wrong_network, late)', ...onCheckout, errors: ['wrong_rail', 'checkout_canceled', 'checkout_failed', 'checkout_expired'] })
  async markSent(@Param('id') id: string, @Body() body: MarkSentRequest, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    return this.change(new MarkSentCommand(id, body?.simulate ?? 'exact', actingFor(auth), writeMeta(request)), id, auth);
  }

  /** Sends a command that changes the checkout, then answers with the checkout as it now is, as this caller may see it. */
  private async change(command: Command<void>, id: string, auth: RequestAuth) {
    await this.commands.execute(command);
    return { data: await this.checkout(id, auth) };
  }

  /** The checkout as this caller may see it: a key or session only its business's, a secret key or session with email, reporting and fee_rate_bps; a public caller any, public fields only. */
  private checkout(id: string, auth: RequestAuth) {
    return this.queries.execute(new GetCheckoutQuery(id, { businessId: actingFor(auth), secretFields: accessOf(auth).type === 'secret' && businessOf(auth) !== null }));
  }
}

/** The business a secret or restricted key or a session acts as; null for a public caller (no credentials, a publishable key, a cookie without Service-Business). */
function actingFor(auth: RequestAuth): ActingFor {
  return businessOf(auth)?.id ?? null;
}
