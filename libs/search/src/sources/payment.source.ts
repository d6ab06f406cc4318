import type { PaymentCreatedData, PaymentEvent } from '@lib/payments';
import { PAYMENT_STREAM, eventTime } from '@lib/payments';
import type { SearchDocument, SearchSource } from '../search.projector';
import { emptyParts } from '../terms';

/**
 * Payments in the index (decision 0031): on ID, checkout IDs, reference, metadata values,
 * transaction hashes, sender addresses, description, amount, and its customer's name and e-mail
 * (the customer document's, kept current by customerSearchSource, plus the `customer_email` the
 * payment was created with). Runs after customerSearchSource, which makes the customer a payment
 * first names.
 */
export const paymentSearchSource: SearchSource = {
  name: 'payments',
  keys(event) {
    const id = PAYMENT_STREAM.parse(event.stream);
    if (id === null) return null;
    const documents: [SearchDocument['kind'], string][] = [['payment', id]];
    const customer = event.type === 'PaymentCreated' ? (event.data as PaymentCreatedData).customer_id : null;
    if (customer) documents.push(['customer', customer]);
    return { documents };
  },
  apply(event, documents) {
    const id = PAYMENT_STREAM.parse(event.stream);
    if (id === null) return;
    const payment = { type: event.type, data: event.data } as PaymentEvent;
    if (payment.type === 'PaymentCreated') {
      const d = payment.data;
      if (!d.business_id || documents.get('payment', id) !== undefined) return;
      const customer = d.customer_id ? documents.get('customer', d.customer_id) : undefined;
      documents.put({
        kind: 'payment',
        object_id: id,
        business_id: d.business_id,
        created_at: eventTime(event),
        customer_id: d.customer_id ?? null,
        parts: {
          ...emptyParts(),
          ids: [id],
          emails: d.customer_email ? [d.customer_email] : [],
          words: { reference: d.reference ? [d.reference] : [], description: d.description ? [d.description] : [], metadata: Object.values(d.metadata ?? {}) },
          amount: { minor: d.amount, currency: d.currency },
          customer: customer ? { name: customer.parts.words.name?.[0] ?? null, email: customer.parts.emails[0] } : null,
        },
      });
      return;
    }
    const existing = documents.get('payment', id);
    if (existing === undefined) return;
    const parts = existing.parts;
    const add = (list: string[], value: string | null | undefined): string[] => (value && !list.includes(value) ? [...list, value] : list);
    switch (payment.type) {
      case 'PaymentMetadataUpdated':
        documents.put({ ...existing, parts: { ...parts, words: { ...parts.words, metadata: Object.values(payment.data.metadata) } } });
        return;
      case 'PaymentMethodSelected':
      case 'PaymentCardMethodSelected':
      case 'PaymentRemainderRequested':
        if (!parts.ids.includes(payment.data.checkout_id)) documents.put({ ...existing, parts: { ...parts, ids: add(parts.ids, payment.data.checkout_id) } });
        return;
      case 'PaymentTransferDetected':
        documents.put({ ...existing, parts: { ...parts, hashes: add(parts.hashes, payment.data.tx_hash), addresses: add(parts.addresses, payment.data.from_address) } });
        return;
      case 'PaymentClaimed':
        documents.put({ ...existing, parts: { ...parts, hashes: add(parts.hashes, payment.data.tx_hash) } });
        return;
    }
  },
};
