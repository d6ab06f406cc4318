import { createHash } from 'node:crypto';
import { EventStore, ExpectedRevision, RecordedEvent, StreamNotFoundError } from '@lib/eventstore';
import { uuidv5 } from '../../domain/checkout-to-payment';
import { LEGACY_PAYMENT_REFERENCE_PREFIX, PAYMENT_REFERENCE_STREAM } from '../../domain/stream-categories';

/** Who holds a business's reference (§8.9): the payment, and the price it was claimed for (claims before decision 0014 carry none). */
export interface ReferenceClaim {
  paymentId: string;
  amount?: number;
  currency?: string;
}

/**
 * The reference streams (`payment_reference-<business>-<sha256(reference)>`, decision 0011): one
 * `PaymentReferenceClaimed` per payment that took the reference; the last one holds it.
 * Appending at the revision read is the uniqueness check under concurrency.
 */
export class PaymentReferences {
  constructor(private readonly store: EventStore) {}

  /**
   * The current claim and the revision to claim at. A store written before decision 0014 has its
   * claims under the old name (`payment-reference-…`): read there while the new stream is empty.
   */
  async read(businessId: string, reference: string): Promise<{ claim: ReferenceClaim | null; expected: ExpectedRevision }> {
    const key = `${businessId}-${hash(reference)}`;
    const current = await this.last(PAYMENT_REFERENCE_STREAM.stream(key));
    if (current) return { claim: claimOf(current), expected: current.revision };
    const legacy = await this.last(`${LEGACY_PAYMENT_REFERENCE_PREFIX}${key}`);
    return { claim: legacy ? claimOf(legacy) : null, expected: 'no_stream' };
  }

  /** Claims the reference for a new payment; a ConcurrencyError means another request claimed it first. */
  async claim(businessId: string, reference: string, claim: Required<ReferenceClaim>, expected: ExpectedRevision): Promise<void> {
    const stream = PAYMENT_REFERENCE_STREAM.stream(`${businessId}-${hash(reference)}`);
    await this.store.append(
      stream,
      [{ id: uuidv5(`reference|${stream}|${claim.paymentId}`), type: 'PaymentReferenceClaimed', data: { reference, payment_id: claim.paymentId, amount: claim.amount, currency: claim.currency } }],
      expected,
    );
  }

  private async last(stream: string): Promise<RecordedEvent | null> {
    try {
      const [event] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
      return event ?? null;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
  }
}

function hash(reference: string): string {
  return createHash('sha256').update(reference).digest('hex').slice(0, 40);
}

function claimOf(event: RecordedEvent): ReferenceClaim {
  const data = event.data as { payment_id: string; amount?: number; currency?: string };
  return { paymentId: data.payment_id, amount: data.amount, currency: data.currency };
}
