import { CustomerDirectory, CustomersReadModel } from '@lib/customers';
import { Database } from '@lib/database';
import { CommandRunner, EventStore, ReadModelWaiter } from '@lib/eventstore';
import { BusinessClock, CheckoutCommand, CreatePaymentHandler, PaymentStreams, PaymentsProcessManager, PaymentsReadModel, PaymentsSettings, simulatedDepositAddress } from '@lib/payments';
import { TimerStore } from '@lib/timers';

/**
 * The payments use cases wired by hand over one store, without Nest (what PaymentsCoreModule
 * provides), for tests that drive the application below HTTP. Read models are not waited for
 * unless `readModels` is given. Payments ask the customers capability which customer an e-mail
 * names (CUSTOMER_GATE): its directory over the same store and database.
 */
export function paymentsUseCases(store: EventStore, db: Database, readModels: ReadModelWaiter = { waitFor: async () => true }) {
  const runner = new CommandRunner(store, readModels);
  const streams = new PaymentStreams(store, runner);
  const timers = new TimerStore(db);
  const settings: PaymentsSettings = { quoteTtlMs: 900_000, feeRateBps: 100, liveNetworks: [] };
  const process = new PaymentsProcessManager(streams, timers, settings);
  const clock = new BusinessClock(timers);
  return { runner, streams, timers, settings, process, clock, createPayment: new CreatePaymentHandler(store, streams, process, clock, runner, settings, new PaymentsReadModel(db, { checkoutBaseUrl: 'http://localhost/pay' }), new CustomerDirectory(store, new CustomersReadModel(db))) };
}

/** A simulated business's USDC checkout on ethereum for a 100.00 USD payment, as the open-checkout use case decides it. */
export function simulatedOpenCheckout(businessId: string, checkoutId: string, paymentId: string): CheckoutCommand {
  return {
    type: 'OpenCheckout', checkoutId, paymentId, linkId: null, rail: 'crypto', simulated: true, asset: 'USDC', network: 'ethereum',
    address: simulatedDepositAddress(businessId, checkoutId, 'ethereum'), rateMinorPerCoin: 100, currency: 'USD', priceMinor: 10_000,
    feePayer: 'business', feeRateBps: 100, remainder: null, quoteTtlMs: 900_000,
    details: { business_id: businessId, email: null, country: null, success_url: null, replaces: null, simulate: null },
  };
}
