/**
 * The payments capability's commands: one folder per use case, each with its command (what the
 * caller sends on the CommandBus), its handler (validate what needs state, load, decide, append,
 * settle, wait — in that order) and, when it takes a body, its DTO (`<use-case>.dto.ts`: the
 * input's shape, checked by the API's validation pipe). Decision 0014.
 */
import { AcceptPaymentHandler } from './accept-payment/accept-payment.handler';
import { AdvanceTestClockHandler } from './advance-test-clock/advance-test-clock.handler';
import { CancelCheckoutHandler } from './cancel-checkout/cancel-checkout.handler';
import { CancelPaymentHandler } from './cancel-payment/cancel-payment.handler';
import { ClaimCheckoutHandler } from './claim-checkout/claim-checkout.handler';
import { CreatePaymentHandler } from './create-payment/create-payment.handler';
import { MarkSentHandler } from './mark-sent/mark-sent.handler';
import { OpenCheckoutHandler } from './open-checkout/open-checkout.handler';
import { RequestRemainderHandler } from './request-remainder/request-remainder.handler';
import { SupersedeCheckoutHandler } from './supersede-checkout/supersede-checkout.handler';
import { UpdatePaymentMetadataHandler } from './update-payment-metadata/update-payment-metadata.handler';
import { StartCardAttemptHandler } from './start-card-attempt/start-card-attempt.handler';
import { ConfirmCardAttemptHandler } from './confirm-card-attempt/confirm-card-attempt.handler';

export * from './create-payment/create-payment.command';
export * from './create-payment/create-payment.dto';
export * from './create-payment/create-payment.handler';
export * from './update-payment-metadata/update-payment-metadata.command';
export * from './update-payment-metadata/update-payment-metadata.dto';
export * from './update-payment-metadata/update-payment-metadata.handler';
export * from './cancel-payment/cancel-payment.command';
export * from './cancel-payment/cancel-payment.handler';
export * from './accept-payment/accept-payment.command';
export * from './accept-payment/accept-payment.handler';
export * from './request-remainder/request-remainder.command';
export * from './request-remainder/request-remainder.handler';
export * from './open-checkout/open-checkout.command';
export * from './open-checkout/open-checkout.dto';
export * from './open-checkout/open-checkout.handler';
export * from './cancel-checkout/cancel-checkout.command';
export * from './cancel-checkout/cancel-checkout.handler';
export * from './supersede-checkout/supersede-checkout.command';
export * from './supersede-checkout/supersede-checkout.handler';
export * from './claim-checkout/claim-checkout.command';
export * from './claim-checkout/claim-checkout.dto';
export * from './claim-checkout/claim-checkout.handler';
export * from './mark-sent/mark-sent.command';
export * from './mark-sent/mark-sent.dto';
export * from './mark-sent/mark-sent.handler';
export * from './advance-test-clock/advance-test-clock.command';
export * from './advance-test-clock/advance-test-clock.dto';
export * from './advance-test-clock/advance-test-clock.handler';
export * from './start-card-attempt/start-card-attempt.command';
export * from './start-card-attempt/start-card-attempt.dto';
export * from './start-card-attempt/start-card-attempt.handler';
export * from './confirm-card-attempt/confirm-card-attempt.command';
export * from './confirm-card-attempt/confirm-card-attempt.handler';
export * from './use-case-steps';

/** Every command handler of the capability (PaymentsCoreModule registers them). */
export const PAYMENT_COMMAND_HANDLERS = [
  CreatePaymentHandler,
  UpdatePaymentMetadataHandler,
  CancelPaymentHandler,
  AcceptPaymentHandler,
  RequestRemainderHandler,
  OpenCheckoutHandler,
  CancelCheckoutHandler,
  SupersedeCheckoutHandler,
  ClaimCheckoutHandler,
  MarkSentHandler,
  AdvanceTestClockHandler,
  StartCardAttemptHandler,
  ConfirmCardAttemptHandler,
];
export * from './input-rules';
