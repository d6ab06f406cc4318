import { randomUUID } from 'node:crypto';
import { ConcurrencyError, EventStore, RecordedEvent, StreamCategory, readStreamOrEmpty } from '@lib/eventstore';
import { Reactor } from '@lib/projections';
import { BusinessEvent, asBusinessEvent } from '../events';
import { REFERRAL_SHARE_BPS, ReferralPayoutAccruedData, referralShare } from '../referrals';
import { BUSINESS_STREAM, REFERRAL_PAYOUT_STREAM } from '../stream-categories';

export const REFERRAL_PAYOUTS_REACTOR = 'referral-payouts';

/** What the reactor reads of a payment's events (their stored format, libs/payments payment.events.ts). */
interface PaymentCreatedShape {
  business_id?: string;
}
interface PaymentSucceededShape {
  reporting?: { currency?: string; fee?: number };
}

/**
 * Referral payouts (decision 0035), from the log: when a payment of a referred live business
 * succeeds, the referrer accrues REFERRAL_SHARE_BPS of the payment's service fee
 * (`reporting.fee`, integer minor units, rounded down) as ReferralPayoutAccrued on the payment's
 * own payout stream, appended with no_stream — so it happens once per payment whatever runs it
 * twice (a crash before the checkpoint moved, two workers): the second append conflicts and adds
 * nothing. A Reactor (never replayed by a projection rebuild). Simulated businesses move no
 * money: their payments accrue nothing; nor does a fee whose share rounds to zero.
 */
export class ReferralPayoutsReactor implements Reactor {
  readonly name = REFERRAL_PAYOUTS_REACTOR;
  readonly batchSize = 200;
  /** What a business's BusinessCreated says about referrals (it never changes), for the last businesses read. */
  private readonly referrals = new Map<string, Referral>();

  constructor(
    private readonly store: EventStore,
    /** The payments capability's stream category (`payment-<pmt_id>`), given by the composition root. */
    private readonly paymentStream: StreamCategory,
  ) {}

  /** A payment's PaymentSucceeded. */
  wants(event: RecordedEvent): boolean {
    return event.type === 'PaymentSucceeded' && this.paymentStream.owns(event.stream);
  }

  async react(events: RecordedEvent[]): Promise<void> {
    for (const event of events) {
      if (!this.wants(event)) continue;
      await this.payout(this.paymentStream.parse(event.stream)!, event);
    }
  }

  /** The payout one succeeded payment earns its business's referrer, appended once; null when it earns none. */
  async payout(paymentId: string, succeeded: RecordedEvent): Promise<ReferralPayoutAccruedData | null> {
    const payment = await readStreamOrEmpty(this.store, succeeded.stream);
    const created = payment.find((e) => e.type === 'PaymentCreated')?.data as PaymentCreatedShape | undefined;
    if (!created?.business_id) return null;
    const business = await this.referralOf(created.business_id);
    const referrer = business?.referrer;
    if (!business || !referrer || business.simulated) return null;
    const reporting = (succeeded.data as PaymentSucceededShape).reporting;
    const fee = reporting?.fee ?? 0;
    const amount = referralShare(fee);
    if (amount <= 0 || !reporting?.currency) return null;
    const data: ReferralPayoutAccruedData = {
      payment_id: paymentId,
      referrer_business_id: referrer,
      referred_business_id: created.business_id,
      currency: reporting.currency,
      fee,
      share_bps: REFERRAL_SHARE_BPS,
      amount,
    };
    try {
      await this.store.append(
        REFERRAL_PAYOUT_STREAM.stream(paymentId),
        [{ id: randomUUID(), type: 'ReferralPayoutAccrued', data, metadata: { actor: { kind: 'system', id: REFERRAL_PAYOUTS_REACTOR, name: null }, causationId: succeeded.id } }],
        'no_stream',
      );
    } catch (error) {
      if (error instanceof ConcurrencyError) return null; // accrued before: once per payment
      throw error;
    }
    return data;
  }

  /** Whether the business is simulated and who referred it, from its BusinessCreated (null: no such business yet). */
  private async referralOf(businessId: string): Promise<Referral | null> {
    const known = this.referrals.get(businessId);
    if (known) return known;
    const created = (await readStreamOrEmpty(this.store, BUSINESS_STREAM.stream(businessId), { maxCount: 1 })) // BusinessCreated opens the stream
      .map(asBusinessEvent)
      .find((e): e is Extract<BusinessEvent, { type: 'BusinessCreated' }> => e?.type === 'BusinessCreated');
    if (!created) return null; // not remembered: the business may be created later
    const referral: Referral = { simulated: created.data.simulated, referrer: created.data.referred_by?.business_id ?? null };
    if (this.referrals.size >= REMEMBERED_BUSINESSES) this.referrals.delete(this.referrals.keys().next().value!);
    this.referrals.set(businessId, referral);
    return referral;
  }
}

/** What a business's BusinessCreated says that a payout needs. */
interface Referral {
  simulated: boolean;
  referrer: string | null;
}

/** How many businesses' referral facts the reactor keeps (each a few dozen bytes). */
const REMEMBERED_BUSINESSES = 10_000;
