import { randomUUID } from 'node:crypto';
import { BusinessEvent, REFERRAL_PAYOUT_STREAM, ReferralPayoutsReactor, businessesProjector, hasReceivedFunds } from '@lib/businesses';
import { PAYMENT_STREAM, paymentsProjector } from '@lib/payments';
import { BUSINESS_STREAM } from '@lib/businesses';
import { ProjectionRunner, ReactorRunner, verifyProjection } from '@lib/projections';
import { eventually } from '../support/eventually';
import { TestStore, openTestStore } from '../support/fixtures';
import { committedHead, settledHead } from '../support/log-head';

/**
 * Referral payouts (issue 19 B11, decision 0035): from the log, a referred live business's
 * succeeded payment accrues 10% of its service fee (rounded down) to the referrer, exactly once —
 * whatever runs the reaction twice (a replay of the same events, two reactors at once, the
 * running reactor and a second one started from the beginning) — and the payout counts as money
 * received (HasReceivedFundsQuery, DELETE /wallet's hold). Simulated businesses accrue nothing.
 */
describe('referral payouts', () => {
  let opened: TestStore;
  let runner: ProjectionRunner;

  beforeAll(async () => {
    opened = await openTestStore('postgres', 'refpay', { pollIntervalMs: 20 });
    runner = new ProjectionRunner(opened.store, opened.db, [businessesProjector, paymentsProjector]);
    await runner.start();
  });
  afterAll(async () => {
    await runner?.stop();
    await opened?.cleanup();
  });

  const business = async (id: string, simulated: boolean, referredBy: string | null) => {
    const created: BusinessEvent = {
      type: 'BusinessCreated',
      data: { business_id: id, name: id, simulated, website: null, support_email: null, referral_code: null, referred_by: referredBy ? { business_id: referredBy, code: 'ref-code' } : null },
    };
    await opened.store.append(BUSINESS_STREAM.stream(id), [{ id: randomUUID(), type: created.type, data: created.data, metadata: {} }], 'no_stream');
  };
  const succeededPayment = async (paymentId: string, businessId: string, fee: number) => {
    await opened.store.append(
      PAYMENT_STREAM.stream(paymentId),
      [
        { id: randomUUID(), type: 'PaymentCreated', data: { payment_id: paymentId, business_id: businessId, amount: 10_000, currency: 'USD', fee_payer: 'business', fee_rate_bps: 100, customer_fee: 0, link_id: null, expires_at: null }, metadata: {} },
        {
          id: randomUUID(),
          type: 'PaymentSucceeded',
          data: { amount_received: 10_000, received_amount: '100', overpaid_amount: null, accepted: false, reporting: { currency: 'USD', amount: 10_000, fee, transaction_fee: 0, customer_fee: 0, net: 10_000 - fee } },
          metadata: {},
        },
      ],
      'no_stream',
    );
  };
  const payoutsOf = async (referrer: string) =>
    (await opened.db.query<{ payment_id: string; amount: string; fee: string; share_bps: number; currency: string }>(`SELECT * FROM referral_payouts WHERE referrer_business_id = $1 ORDER BY payment_id`, [referrer])).rows;

  it('accrues 10% of the fee, rounded down, once per payment, however often and by however many reactors it runs', async () => {
    const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
    const referrer = `biz_ref${suffix}`;
    const referred = `biz_new${suffix}`;
    const sandbox = `biz_sbx${suffix}`;
    const stranger = `biz_str${suffix}`;
    await business(referrer, false, null);
    await business(referred, false, referrer);
    await business(sandbox, true, referrer);
    await business(stranger, false, null);
    expect(await hasReceivedFunds(opened.db, referrer)).toBe(false);

    const reactor = new ReferralPayoutsReactor(opened.store, PAYMENT_STREAM);
    const a = new ReactorRunner(opened.store, opened.db, reactor);
    const b = new ReactorRunner(opened.store, opened.db, new ReferralPayoutsReactor(opened.store, PAYMENT_STREAM));
    await Promise.all([a.start(), b.start()]); // the same name: one checkpoint, two subscribers racing on it
    try {
      await succeededPayment(`pmt_a${suffix}`, referred, 299); // 29.9 → 29
      await succeededPayment(`pmt_b${suffix}`, referred, 9); // 0.9 → nothing
      await succeededPayment(`pmt_c${suffix}`, sandbox, 1000); // simulated: nothing
      await succeededPayment(`pmt_d${suffix}`, stranger, 1000); // not referred: nothing
      const rows = await eventually(async () => {
        const found = await payoutsOf(referrer);
        return found.length >= 1 ? found : undefined;
      });
      expect(rows).toEqual([{ payment_id: `pmt_a${suffix}`, referrer_business_id: referrer, referred_business_id: referred, currency: 'USD', fee: '299', share_bps: 1000, amount: '29', created_at: expect.any(Date) }]);

      // the same events again, straight into a reactor (a replay after a crash before the checkpoint moved)
      await settledHead(opened.store); // every payment above visible to the log reader, so the replay has them all
      const all = await opened.store.readAll();
      expect(all.filter((e) => e.stream.startsWith('payment-pmt_') && e.stream.endsWith(suffix)).length).toBeGreaterThanOrEqual(4);
      await reactor.react(all);
      await new ReferralPayoutsReactor(opened.store, PAYMENT_STREAM).react(all);
      const payoutEvents = await opened.store.readStream(REFERRAL_PAYOUT_STREAM.stream(`pmt_a${suffix}`));
      expect(payoutEvents).toHaveLength(1);
      for (const id of ['b', 'c', 'd']) await expect(opened.store.readStream(REFERRAL_PAYOUT_STREAM.stream(`pmt_${id}${suffix}`))).rejects.toThrow();
      expect(await runner.waitFor((await committedHead(opened.store))!, 20_000)).toBe(true);
      expect(await payoutsOf(referrer)).toHaveLength(1);
      expect(await hasReceivedFunds(opened.db, referrer)).toBe(true);
      expect(await hasReceivedFunds(opened.db, stranger)).toBe(true); // its own succeeded payment counts
      expect(await hasReceivedFunds(opened.db, `biz_none${suffix}`)).toBe(false);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('the businesses projection of settings, alert addresses, referral codes and payouts verifies: a replay in one go gives the live rows', async () => {
    const id = `biz_v${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    await business(id, false, null);
    const append = async (event: BusinessEvent) => {
      const stream = BUSINESS_STREAM.stream(id);
      const last = (await opened.store.readStream(stream)).at(-1)!.revision;
      await opened.store.append(stream, [{ id: randomUUID(), type: event.type, data: event.data, metadata: {} }], last);
      expect(await runner.waitFor((await committedHead(opened.store))!, 20_000)).toBe(true); // one batch each: changes land on rows of earlier batches
    };
    await append({ type: 'BusinessSettingsChanged', data: { business_id: id, name: 'Renamed', website: 'https://x.example', email_alerts: false } });
    const sent = { business_id: id, email: 'ops@x.example', code_salt: '0'.repeat(32), code_hash: '1'.repeat(64), sent_at: '2026-01-01T00:00:00.000Z', pending_since: '2026-01-01T00:00:00.000Z' };
    await append({ type: 'AlertEmailCodeSent', data: sent });
    await append({ type: 'AlertEmailConfirmed', data: { business_id: id, email: 'ops@x.example' } });
    await append({ type: 'ReferralCodeChanged', data: { business_id: id, code: 'renamed-co', previous: null } });
    await append({ type: 'BusinessSuspended', data: { business_id: id, suspended_at: '2026-01-02T00:00:00.000Z', reason: 'test' } });
    const { rows } = await opened.db.query(`SELECT name, website, email_alerts, alert_email, pending_alert_email, referral_code, status FROM businesses WHERE id = $1`, [id]);
    expect(rows[0]).toEqual({ name: 'Renamed', website: 'https://x.example', email_alerts: false, alert_email: 'ops@x.example', pending_alert_email: null, referral_code: 'renamed-co', status: 'suspended' });
    expect((await verifyProjection(opened.store, opened.db, businessesProjector)).differences).toEqual([]);
  });
});
