/**
 * The payments capability's queries: one folder per question, each with its query (sent on the
 * QueryBus) and its handler (answers from the read model, never from a stream). Decision 0014.
 */
import { GetCheckoutHandler } from './get-checkout/get-checkout.handler';
import { GetPaymentHandler } from './get-payment/get-payment.handler';
import { GetReceiptHandler } from './get-receipt/get-receipt.handler';
import { GetTestClockHandler } from './get-test-clock/get-test-clock.handler';
import { ListPaymentsHandler } from './list-payments/list-payments.handler';

export * from './get-payment/get-payment.query';
export * from './get-payment/get-payment.handler';
export * from './list-payments/list-payments.query';
export * from './list-payments/list-payments.handler';
export * from './list-payments/payment-pages';
export * from './get-checkout/get-checkout.query';
export * from './get-checkout/get-checkout.handler';
export * from './get-receipt/get-receipt.query';
export * from './get-receipt/get-receipt.handler';
export * from './get-test-clock/get-test-clock.query';
export * from './get-test-clock/get-test-clock.handler';

/** Every query handler of the capability (PaymentsCoreModule registers them). */
export const PAYMENT_QUERY_HANDLERS = [GetPaymentHandler, ListPaymentsHandler, GetCheckoutHandler, GetReceiptHandler, GetTestClockHandler];
