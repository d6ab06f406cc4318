import { CommandRunner, openEventStore } from '@lib/eventstore';
import { PaymentStreams, simulatedDepositAddress } from '@lib/payments';
import { eventually } from '../../support/eventually';
import { Client, businessWithKey, startApp, startTestApi, testStorage } from '../../support/fixtures';

/**
 * What must survive a restart: durable timers fire in the worker after the process that
 * scheduled them is gone; a process that died between an append and its reactions is made good
 * by the worker's backstop; and the whole flow runs on PostgreSQL as on the embedded store.
 */
describe('payments across restarts', () => {
  it('a payment expiry timer scheduled before a restart fires in the new process without any clock advance', async () => {
    const storage = await testStorage('embedded');
    try {
      let api = await startTestApi(storage.env);
      const { client, secret_key } = await businessWithKey(api, true);
      const payment = await client.createPayment({ expires_at: new Date(Date.now() + 1500).toISOString() });
      await api.close();
      await new Promise((resolve) => setTimeout(resolve, 1600));
      api = await startTestApi(storage.env);
      const again = new Client(api, secret_key);
      const failed = await eventually(() => again.payment(payment.id), (p) => p.status === 'failed', { what: 'the expiry timer fired in the new process' });
      expect(failed.failure_code).toBe('payment_expired');
      expect(failed.events.map((e: { type: string }) => e.type)).toEqual(['created', 'expired', 'failed']);
      await api.close();
    } finally {
      await storage.cleanup();
    }
  });

  it('a checkout opened by a process that died before settling is recorded on its payment by the worker backstop', async () => {
    const storage = await testStorage('embedded');
    try {
      let api = await startTestApi(storage.env);
      const created = await businessWithKey(api, true);
      const payment = await created.client.createPayment();
      await api.close();
      // the "dead" process: the checkout's event is appended, nothing else happened
      const opened = await openEventStore({ dataDir: storage.env.DATA_DIR });
      const checkoutId = 'chk_orphan0000000000000001';
      await new PaymentStreams(opened.store, new CommandRunner(opened.store)).decideCheckout(
        checkoutId,
        {
          type: 'OpenCheckout', checkoutId, paymentId: payment.id, linkId: null, rail: 'crypto', simulated: true, asset: 'USDC', network: 'ethereum',
          address: simulatedDepositAddress(created.business.id, checkoutId, 'ethereum'), rateMinorPerCoin: 100, currency: 'USD', priceMinor: 10_000,
          feePayer: 'business', feeRateBps: 100, remainder: null, quoteTtlMs: 900_000,
          details: { business_id: created.business.id, email: null, country: null, success_url: null, replaces: null, simulate: null },
        },
        { now: new Date(), metadata: {} },
      );
      await opened.close();
      api = await startTestApi(storage.env);
      const client = new Client(api, created.secret_key);
      const selected = await eventually(() => client.payment(payment.id), (p) => p.events.some((e: { type: string }) => e.type === 'method_selected'), { what: 'the backstop recorded method_selected' });
      expect(selected.checkout_id).toBe(checkoutId);
      // and its timers were scheduled: the simulated arrival and confirmations follow on the test clock
      await client.advance(60);
      expect((await client.payment(payment.id)).status).toBe('succeeded');
      await api.close();
    } finally {
      await storage.cleanup();
    }
  });

  it('runs the flow on PostgreSQL: succeeded, and underpaid → remainder → succeeded', async () => {
    const api = await startApp('postgres', {}, 'payments');
    try {
      const { client } = await businessWithKey(api, true);
      const payment = await client.createPayment();
      const checkout = await client.openCheckout(payment);
      await client.markSent(checkout.id, 'exact');
      await client.advance(30);
      expect((await client.payment(payment.id)).status).toBe('succeeded');

      const short = await client.createPayment();
      const c2 = await client.openCheckout(short);
      await client.markSent(c2.id, 'underpaid');
      await client.advance(16 * 60);
      expect((await client.payment(short.id)).status).toBe('underpaid');
      const remainder = await client.postOnce(`/payments/${short.id}/request-remainder`);
      expect(remainder.status).toBe(201);
      await client.markSent(remainder.body.data.checkout.id, 'exact');
      await client.advance(30);
      const done = await client.payment(short.id);
      expect(done.status).toBe('succeeded');
      expect(done.events.map((e: { type: string }) => e.type)).toContain('remainder_paid');
    } finally {
      await api.close();
    }
  });
});
