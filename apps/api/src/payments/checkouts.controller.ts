import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { BusinessService } from '@lib/businesses';
import { ActingFor, PaymentDomainError, PaymentsApp, PaymentsReadModel } from '@lib/payments';
import { LiveModeAction, Public } from '../auth/auth.decorators';
import { Auth, RequestAuth, writeMeta } from '../auth/request-auth';
import { IdempotencyKeyRequired } from '../platform/idempotency.interceptor';
import { ApiErrors, dataOf } from '../platform/openapi';
import { CHECKOUT_SCHEMA } from './schemas';
import { RateLimit } from '../platform/rate-limit.guard';
import { ClaimCheckoutBody, MarkSentBody, OpenCheckoutBody } from './dto';

/**
 * Checkouts (spec §4): public routes a checkout page calls. With the owning business's secret
 * key the checkout gains `email`, `reporting` and `fee_rate_bps` (§2). A secret or restricted
 * key acts as its business here too: another business's checkout is 404 not_found (and another
 * business's payment code on POST /checkouts 404 payment_not_found); no credentials or a
 * publishable key (which the guard leaves anonymous) act on any checkout by its id.
 */
@ApiTags('checkouts')
@Controller('checkouts')
export class CheckoutsController {
  constructor(
    private readonly app: PaymentsApp,
    private readonly read: PaymentsReadModel,
    private readonly businesses: BusinessService,
  ) {}

  @ApiOperation({ summary: 'Open a checkout (one attempt to pay a payment)' })
  @ApiCreatedResponse({ description: 'The checkout.', schema: dataOf(CHECKOUT_SCHEMA) })
  @ApiErrors(
    'email_required',
    'invalid_email',
    'rail_unavailable',
    'asset_unavailable',
    'amount_out_of_range',
    'customer_blocked',
    'business_suspended',
    'link_not_found',
    'payment_not_found',
    'not_accepting',
    'payment_paid',
    'payment_canceled',
    'payment_expired',
    'temporarily_unavailable',
  )
  @Public()
  @LiveModeAction()
  @IdempotencyKeyRequired()
  @RateLimit('checkouts.create')
  @Post()
  async open(@Body() body: OpenCheckoutBody, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    const { checkoutId } = await this.app.openCheckout(
      body,
      {
        business: auth.kind === 'api_key' ? auth.business : null,
        loadBusiness: async (id) => {
          const business = await this.businesses.getBusiness(id);
          return business ? { id: business.id, simulated: business.simulated, status: business.status } : null;
        },
      },
      writeMeta(request),
    );
    return { data: await this.checkout(checkoutId, auth) };
  }

  @ApiOperation({ summary: 'Retrieve a checkout' })
  @ApiOkResponse({ description: 'The checkout.', schema: dataOf(CHECKOUT_SCHEMA) })
  @Public()
  @Get(':id')
  async get(@Param('id') id: string, @Auth() auth: RequestAuth) {
    return { data: await this.checkout(id, auth) };
  }

  @ApiOperation({ summary: 'Cancel an open or awaiting_customer checkout (the customer leaves)' })
  @ApiOkResponse({ description: 'The checkout.', schema: dataOf(CHECKOUT_SCHEMA) })
  @ApiErrors('checkout_not_cancelable')
  @Public()
  @HttpCode(200)
  @Post(':id/cancel')
  async cancel(@Param('id') id: string, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    await this.app.cancelCheckout(this.checkoutId(id), writeMeta(request), actingFor(auth));
    return { data: await this.checkout(id, auth) };
  }

  @ApiOperation({ summary: 'Set a checkout aside for a new one (it stays watched until it expires)' })
  @ApiOkResponse({ description: 'The checkout.', schema: dataOf(CHECKOUT_SCHEMA) })
  @ApiErrors('checkout_not_supersedable')
  @Public()
  @HttpCode(200)
  @Post(':id/supersede')
  async supersede(@Param('id') id: string, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    await this.app.supersedeCheckout(this.checkoutId(id), writeMeta(request), actingFor(auth));
    return { data: await this.checkout(id, auth) };
  }

  @ApiOperation({ summary: 'Claim a transfer sent after the checkout closed (the business reviews it)' })
  @ApiOkResponse({ description: 'The checkout.', schema: dataOf(CHECKOUT_SCHEMA) })
  @ApiErrors('invalid_tx_hash', 'invalid_email', 'wrong_rail', 'payment_paid', 'already_claimed', 'checkout_not_claimable')
  @Public()
  @HttpCode(200)
  @Post(':id/claim')
  async claim(@Param('id') id: string, @Body() body: ClaimCheckoutBody, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    await this.app.claimCheckout(this.checkoutId(id), body, writeMeta(request), actingFor(auth));
    return { data: await this.checkout(id, auth) };
  }

  @ApiOperation({ summary: 'Simulated businesses: send the transfer now (exact, underpaid, overpaid, wrong_network, late)' })
  @ApiOkResponse({ description: 'The checkout.', schema: dataOf(CHECKOUT_SCHEMA) })
  @ApiErrors('wrong_rail', 'checkout_canceled', 'checkout_failed', 'checkout_expired')
  @Public()
  @HttpCode(200)
  @Post(':id/mark-sent')
  async markSent(@Param('id') id: string, @Body() body: MarkSentBody, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    await this.app.markSent(this.checkoutId(id), body?.simulate ?? 'exact', writeMeta(request), actingFor(auth));
    return { data: await this.checkout(id, auth) };
  }

  private checkoutId(id: string): string {
    if (!/^chk_[A-Za-z0-9]{1,64}$/.test(id)) throw new PaymentDomainError('not_found', `No checkout ${id}.`);
    return id;
  }

  private async checkout(id: string, auth: RequestAuth) {
    this.checkoutId(id);
    // a key sees only its business's checkouts, a secret key with email, reporting and fee_rate_bps; a public caller any checkout, public fields only
    const businessId = actingFor(auth) ?? undefined;
    const secretFields = auth.kind === 'api_key' && auth.key.type === 'secret';
    const view = await this.read.getCheckout(id, { secretFields, businessId });
    if (!view) throw new PaymentDomainError('not_found', `No checkout ${id}.`);
    return view;
  }
}

/** The business a secret or restricted key acts as; null for a public caller (no credentials, or a publishable key). */
function actingFor(auth: RequestAuth): ActingFor {
  return auth.kind === 'api_key' ? auth.business.id : null;
}
