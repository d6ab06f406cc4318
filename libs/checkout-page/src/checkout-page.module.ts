import { Module } from '@nestjs/common';
import { OperationsModule } from '@lib/operations';
import { PaymentsCoreModule } from '@lib/payments';
import { PageCodes } from './page-codes';
import { CheckoutPageRoutes } from './page-routes';
import { GetCheckoutPageHandler } from './queries/get-checkout-page/get-checkout-page.handler';
import { GetCheckoutQrHandler } from './queries/get-checkout-qr/get-checkout-qr.handler';
import { GetPageReceiptHandler } from './queries/get-page-receipt/get-page-receipt.handler';

/**
 * The hosted checkout page (spec `{checkout_url}`, decision 0027): its routes outside /api/v1
 * and the queries they ask, over the payments read model. The API process composes it
 * (apps/api AppModule); the page's script then talks to the public API routes only.
 */
@Module({
  imports: [PaymentsCoreModule, OperationsModule],
  providers: [PageCodes, GetCheckoutPageHandler, GetCheckoutQrHandler, GetPageReceiptHandler, CheckoutPageRoutes],
})
export class CheckoutPageModule {}
