import { Body, Controller, Header, Param, Query, Req } from '@nestjs/common';
import { Command, CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Business } from '@lib/businesses';
import {
  AcceptPaymentCommand,
  CancelPaymentCommand,
  CheckoutView,
  CreatePaymentCommand,
  CreatePaymentRequest,
  GetCheckoutQuery,
  GetPaymentQuery,
  ListPaymentsQuery,
  PaymentView,
  RequestRemainderCommand,
  UpdatePaymentMetadataCommand,
  UpdatePaymentMetadataRequest,
} from '@lib/payments';
import { CurrentBusiness, writeMeta } from '../auth/request-auth';
import { IdempotencyKeyRequired } from '../platform/idempotency.interceptor';
import { ActionRoute, ApiPage, ChangeRoute, CreateRoute, GetRoute } from '../platform/route-presets';
import { PAYMENT_SCHEMA, REMAINDER_REQUEST_SCHEMA } from './schemas';

/**
 * Payments (spec §2, §4): thin — each route builds its use case's command or query from the
 * request (the body already checked against the use case's request class) and sends it on the
 * CommandBus or QueryBus (@nestjs/cqrs; handlers in libs/payments/src/commands and queries),
 * then answers `{data}` from the read model.
 */
@ApiTags('payments')
@Controller('payments')
export class PaymentsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @CreateRoute(undefined, { summary: 'Create a payment', data: [PAYMENT_SCHEMA, 'The payment (the same one again for a repeated reference, amount and currency).'], errors: ['invalid_email', 'reference_in_use', 'business_suspended', 'customer_blocked'], access: ['payments', 'write'], live: true })
  async create(@CurrentBusiness() business: Business, @Body() body: CreatePaymentRequest, @Req() request: FastifyRequest) {
    const { paymentId, payment } = await this.commands.execute(new CreatePaymentCommand(business, body, writeMeta(request)));
    return { data: payment ?? (await this.payment(business, paymentId)) };
  }

  @ApiQuery({ name: 'status', required: false, description: 'One status or several, comma separated.' })
  @ApiQuery({ name: 'metadata[key]', required: false, description: 'Payments whose metadata has this value for this key (several allowed).' })
  @ApiQuery({ name: 'customer_id', required: false, description: 'The payments of this customer (cst_…).' })
  @ApiQuery({ name: 'customer', required: false, description: 'The same filter as customer_id (its first name).' })
  @ApiQuery({ name: 'link_id', required: false, description: 'The payments this payment link made (lnk_…).' })
  @ApiQuery({ name: 'reference', required: false })
  @ApiQuery({ name: 'created[gte]', required: false, description: 'ISO 8601; also created[gt], created[lte], created[lt].' })
  @ApiPage(PAYMENT_SCHEMA, 'A page of payments.', 'next_cursor of the previous page (bound to this list and its filters).')
  @GetRoute(undefined, { summary: 'List payments, newest first (filters: status, metadata[key], customer_id, link_id, reference, created[gte|gt|lte|lt])', access: ['payments', 'read'] })
  @Header('content-type', 'application/json; charset=utf-8') // the body is JSON text already (decision 0018): Fastify sends it as it is
  async list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>): Promise<string> {
    return this.queries.execute(new ListPaymentsQuery(business.id, query));
  }

  @GetRoute(':id', { summary: 'Retrieve a payment with its timeline', data: [PAYMENT_SCHEMA, 'The payment.'], access: ['payments', 'read'] })
  async get(@CurrentBusiness() business: Business, @Param('id') id: string) {
    return { data: await this.payment(business, id) };
  }

  @ChangeRoute(':id', { summary: "Update a payment's metadata (merge by key; '' or null removes a key; metadata null clears all)", data: [PAYMENT_SCHEMA, 'The payment.'], access: ['payments', 'write'] })
  async update(@CurrentBusiness() business: Business, @Param('id') id: string, @Body() body: UpdatePaymentMetadataRequest, @Req() request: FastifyRequest) {
    return this.change(new UpdatePaymentMetadataCommand(business, id, body.metadata, writeMeta(request)), business, id);
  }

  @ActionRoute(':id/cancel', { summary: 'Cancel a pending payment', data: [PAYMENT_SCHEMA, 'The payment.'], errors: ['payment_not_cancelable', 'payment_in_flight'], access: ['payments', 'write'], live: true })
  async cancel(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return this.change(new CancelPaymentCommand(business, id, writeMeta(request)), business, id);
  }

  @ActionRoute(':id/accept', { summary: 'Accept an underpaid or needs_review payment (it succeeds)', data: [PAYMENT_SCHEMA, 'The payment.'], errors: ['payment_not_acceptable', 'payment_in_flight'], access: ['payments', 'write'], live: true })
  async accept(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return this.change(new AcceptPaymentCommand(business, id, writeMeta(request)), business, id);
  }

  @IdempotencyKeyRequired()
  @CreateRoute(':id/request-remainder', { summary: 'Open a checkout for what is left of an underpaid payment', description: 'The remainder is quoted at the rate now, read from the business’s exchange-rate source before anything changes: at the first quote’s rate it is exactly the coin left, at another rate the price left quoted afresh. A source that cannot be reached gives 503 `upstream_unavailable` (nothing changed; retry with the same Idempotency-Key); a source with no fresh price gives 503 `temporarily_unavailable`. While the remainder checkout is open the same checkout is answered; while a transfer to the payment is confirming none is: 409 `nothing_due` when it covers what is left, 409 `remainder_unavailable` when it leaves part of it, with `quote_ends_at` the earliest its quote can end (its quote is held for 15 minutes after the transfer itself, not after its confirmation; never a time already past), and once it is confirmed the end itself.', data: [REMAINDER_REQUEST_SCHEMA, 'The payment, the remainder checkout and its page.'], errors: ['payment_not_underpaid', 'remainder_unavailable', 'nothing_due', 'not_accepting', 'business_suspended', 'temporarily_unavailable', 'upstream_unavailable'], access: ['payments', 'write'], live: true })
  async requestRemainder(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    const { checkoutId, linkPageUrl } = await this.commands.execute(new RequestRemainderCommand(business, id, writeMeta(request)));
    const payment = await this.payment(business, id);
    const checkout = await this.queries.execute(new GetCheckoutQuery(checkoutId, { businessId: business.id, secretFields: true }));
    return { data: { kind: 'remainder_request', payment, checkout, url: pageUrlOf(payment.url ?? linkPageUrl, id, checkoutId) } satisfies RemainderRequestView };
  }

  /** The business's payment from the read model (404 not_found for none, or another business's). */
  private payment(business: Business, id: string) {
    return this.queries.execute(new GetPaymentQuery(business.id, id));
  }

  /** Sends a command that changes the payment, then answers with the payment as it now is. */
  private async change(command: Command<void>, business: Business, id: string) {
    await this.commands.execute(command);
    return { data: await this.payment(business, id) };
  }
}

/** The answer of POST /payments/{id}/request-remainder (the RemainderRequest component, schemas.ts). */
interface RemainderRequestView {
  kind: 'remainder_request';
  payment: PaymentView;
  checkout: CheckoutView;
  url: string;
}

/**
 * The page that resumes a checkout, with `?s=<checkout>`: the payment's own page, or a link
 * payment's link page. Every payment has one of the two (a payment's code is always recorded; a
 * link with payments cannot be deleted, and its payment is recorded on it before the payment is
 * written), so the answer's `url` is never null (spec §4): having neither is a server fault (500).
 */
function pageUrlOf(page: string | null, payment: string, checkoutId: string): string {
  if (page === null) throw new Error(`payment ${payment}: no checkout page for its remainder checkout ${checkoutId}`);
  return `${page}?s=${encodeURIComponent(checkoutId)}`;
}
