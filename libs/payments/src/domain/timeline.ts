import { ignoreUnknown } from '@lib/domain';
import type { PaymentEvent } from './payment.events';

/** A payment event as the log returns it: the event and the time it was recorded. */
export type RecordedPaymentEvent = PaymentEvent & { recorded_at: string };

export interface TimelineEntry {
  type: string;
  created_at: string;
  data: Record<string, unknown> | null;
}

/** The payment's `events` (spec §2), oldest first, derived from its stream alone. */
export function timeline(events: readonly RecordedPaymentEvent[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  const add = (type: string, at: string, data: Record<string, unknown> | null): void => void out.push({ type, created_at: at, data });
  for (const e of events) {
    const at = e.recorded_at;
    switch (e.type) {
      case 'PaymentCreated':
        add('created', at, null);
        break;
      case 'PaymentMethodSelected':
        add('method_selected', at, { rail: e.data.rail, asset: e.data.asset, network: e.data.network });
        break;
      case 'PaymentTransferDetected':
        add('detected', at, { amount: e.data.amount, network: e.data.network, tx_hash: e.data.tx_hash });
        break;
      case 'PaymentConfirmationRecorded':
        add('confirmation', at, { current: e.data.current, required: e.data.required });
        break;
      case 'PaymentUnderpaid':
        add('underpaid', at, { expected: e.data.expected, received: e.data.received });
        break;
      case 'PaymentSucceeded':
        add('succeeded', at, null);
        break;
      case 'PaymentRemainderRequested':
        add('remainder_requested', at, { checkout_id: e.data.checkout_id, amount: e.data.amount, currency: e.data.currency });
        break;
      case 'PaymentClaimed':
        add('claimed', at, { tx_hash: e.data.tx_hash, network: e.data.network });
        break;
      case 'PaymentFailed':
        add('failed', at, { reason: e.data.reason });
        break;
      case 'PaymentExpired':
        add('expired', at, null);
        add('failed', at, { reason: 'expired' });
        break;
      case 'PaymentRemainderPaid':
        add('remainder_paid', at, { checkout_id: e.data.checkout_id, amount: e.data.amount });
        break;
      case 'PaymentCanceled':
        add('canceled', at, null);
        break;
      case 'PaymentMetadataUpdated':
      case 'PaymentNeedsReview':
      case 'PaymentAccepted':
      case 'PaymentCheckoutEnded':
        break; // metadata, needs_review, accepted, checkout ended: state changes the timeline does not list
      default:
        ignoreUnknown(e, null); // a new type left out fails to compile; an unknown stored type adds no entry
    }
  }
  return out;
}
