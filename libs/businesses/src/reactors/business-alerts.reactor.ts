import { Database } from '@lib/database';
import { EventStore, RecordedEvent, StreamCategory, readStreamOrEmpty } from '@lib/eventstore';
import { Reactor } from '@lib/projections';
import { renderMail } from '@lib/mail';
import { minorToDecimal } from '@lib/money';
import { BusinessMail, BusinessMailMessage } from '../business-mail';
import { businessDecider } from '../business.decider';
import { foldWith } from '@lib/domain';
import { BUSINESS_STREAM } from '../stream-categories';

export const BUSINESS_ALERTS_REACTOR = 'business-alerts';

/** Events older than this when the reactor first sees them alert nobody (a reactor started late, or far behind, does not mail the past). */
export const ALERT_MAX_AGE_MS = 60 * 60_000;

/** The payment events that put a payment in needs_review (`payment.needs_review`): a transfer or card payment to review, a customer's claim. */
const NEEDS_REVIEW: readonly string[] = ['PaymentNeedsReview', 'PaymentClaimed'];

interface PaymentCreatedShape {
  business_id?: string;
  amount?: number;
  currency?: string;
  description?: string | null;
}

/**
 * Alerts e-mailed to a business's confirmed `alert_email` while `email_alerts` is on (decision
 * 0035): today one kind, a payment that needs review (PaymentNeedsReview, PaymentClaimed). Runs from the log as a
 * Reactor (its own checkpoint; never replayed by a projection rebuild) with an outbox row per
 * alerting event (`business_alert_emails`, id = the event id): inserted, sent, marked sent — an
 * event seen again finds its row sent and sends nothing. Only a crash between the SMTP answer and
 * the mark can send one twice. A failed send (mail server down) fails the batch: the runner
 * retries it with back-off, so no alert is lost. The address and the setting are read from the
 * business's stream when the alert is sent.
 */
export class BusinessAlertsReactor implements Reactor {
  readonly name = BUSINESS_ALERTS_REACTOR;
  readonly batchSize = 100;

  constructor(
    private readonly store: EventStore,
    private readonly db: Database,
    private readonly mail: BusinessMail,
    /** The payments capability's stream category (`payment-<pmt_id>`), given by the composition root. */
    private readonly paymentStream: StreamCategory,
    private readonly options: { now?: () => number } = {},
  ) {}

  /** A payment's needs-review event. */
  wants(event: RecordedEvent): boolean {
    return NEEDS_REVIEW.includes(event.type) && this.paymentStream.owns(event.stream);
  }

  async react(events: RecordedEvent[]): Promise<void> {
    const now = (this.options.now ?? Date.now)();
    for (const event of events) {
      if (!this.wants(event)) continue;
      if (now - event.recordedAt.getTime() > ALERT_MAX_AGE_MS) continue;
      await this.needsReview(this.paymentStream.parse(event.stream)!, event);
    }
  }

  private async needsReview(paymentId: string, event: RecordedEvent): Promise<void> {
    const created = (await readStreamOrEmpty(this.store, event.stream)).find((e) => e.type === 'PaymentCreated')?.data as PaymentCreatedShape | undefined;
    if (!created?.business_id) return;
    const business = foldWith(businessDecider, await readStreamOrEmpty(this.store, BUSINESS_STREAM.stream(created.business_id)));
    if (business.status === 'none' || !business.settings.email_alerts || business.alertEmail === null) return;
    const reason = event.type === 'PaymentClaimed' ? 'claimed' : String((event.data as { reason?: unknown }).reason ?? 'review');
    const amount = typeof created.amount === 'number' && created.currency ? amountText(created.amount, created.currency) : null;
    await this.sendOnce(event.id, business.id, 'payment.needs_review', paymentId, {
      to: business.alertEmail,
      ...renderMail({
        title: `Payment ${paymentId} needs your review`,
        paragraphs: [`A payment to ${business.name} needs your review (${reason}).`, `Payment: ${paymentId}${amount ? `, ${amount}` : ''}.`, 'Open it in your dashboard to accept it or settle it with the customer.'],
        footer: 'You receive this because e-mail alerts are on for this business; turn them off in its settings.',
      }),
    });
  }

  /** The outbox step: a row per alerting event; sent once. */
  private async sendOnce(id: string, businessId: string, kind: string, subjectId: string, message: BusinessMailMessage): Promise<void> {
    await this.db.query(
      `INSERT INTO business_alert_emails (id, business_id, kind, subject_id, recipient) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
      [id, businessId, kind, subjectId, message.to],
      'business_alerts_insert',
    );
    const claimed = await this.db.query<{ recipient: string }>(
      `UPDATE business_alert_emails SET attempts = attempts + 1 WHERE id = $1 AND sent_at IS NULL RETURNING recipient`,
      [id],
      'business_alerts_attempt',
    );
    if (claimed.rows.length === 0) return; // sent before
    await this.mail.send({ ...message, to: claimed.rows[0].recipient });
    await this.db.query(`UPDATE business_alert_emails SET sent_at = now() WHERE id = $1`, [id], 'business_alerts_sent');
  }
}

/** A price in the e-mail: its currency's own minor digits (¥5000 is "5000 JPY", $25.50 "25.50 USD"); a code we do not price, as minor units. */
function amountText(minor: number, currency: string): string {
  try {
    return `${minorToDecimal(minor, currency)} ${currency}`;
  } catch {
    return `${minor} ${currency} (minor units)`;
  }
}
