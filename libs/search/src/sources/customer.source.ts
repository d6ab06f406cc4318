import type { RecordedEvent } from '@lib/eventstore';
import { asCustomerEvent, isCustomerId } from '@lib/customers';
import { PAYMENT_STREAM, eventTime } from '@lib/payments';
import type { SearchDocument, SearchSource } from '../search.projector';
import { emptyParts } from '../terms';

/**
 * Customers in the index (decision 0031): on ID, e-mail and name, as GET /customers/{id} shows them
 * (the rules of the `customers` projection, decision 0029: a customer first known from a
 * payment's `customer_email` appears with that payment, at its time; a recorded CustomerCreated
 * keeps the earlier time). A change of name or e-mail is carried into the customer's payments.
 */
export const customerSearchSource: SearchSource = {
  name: 'customers',
  keys(event) {
    const customer = asCustomerEvent(event);
    if (customer !== null) {
      const id = event.stream.slice('customer-'.length);
      return { documents: [['customer', id]], paymentsOfCustomers: [id] };
    }
    const known = knownFromPayment(event);
    return known === null ? null : { documents: [['customer', known.customer_id]] };
  },
  apply(event, documents) {
    const known = knownFromPayment(event);
    if (known !== null) {
      if (documents.get('customer', known.customer_id) === undefined) {
        documents.put(customerDocument(known.customer_id, known.business_id, eventTime(event), known.customer_email, null));
      }
      return;
    }
    const customer = asCustomerEvent(event);
    if (customer === null) return;
    const id = event.stream.slice('customer-'.length);
    const existing = documents.get('customer', id);
    let document: SearchDocument;
    if (customer.type === 'CustomerCreated') {
      const d = customer.data;
      const created = new Date(d.created_at ?? eventTime(event)).toISOString();
      const at = existing && existing.created_at < created ? existing.created_at : created;
      document = customerDocument(id, existing?.business_id ?? d.business_id, at, d.email, d.name);
    } else if (customer.type === 'CustomerUpdated') {
      if (existing === undefined) return;
      document = customerDocument(id, existing.business_id, existing.created_at, customer.data.email, customer.data.name);
    } else {
      return; // blocking changes nothing searchable
    }
    documents.put(document);
    for (const payment of documents.paymentsOf(id)) {
      documents.put({ ...payment, parts: { ...payment.parts, customer: { name: customer.data.name, email: customer.data.email } } });
    }
  },
};

function customerDocument(id: string, businessId: string, createdAt: string, email: string, name: string | null): SearchDocument {
  return { kind: 'customer', object_id: id, business_id: businessId, created_at: createdAt, customer_id: null, parts: { ...emptyParts(), ids: [id], emails: [email], words: { name: name ? [name] : [] } } };
}

/** A PaymentCreated naming a customer (who then exists, decision 0029), or null. */
function knownFromPayment(event: RecordedEvent): { customer_id: string; customer_email: string; business_id: string } | null {
  if (event.type !== 'PaymentCreated' || PAYMENT_STREAM.parse(event.stream) === null) return null;
  const d = event.data as { customer_id?: string | null; customer_email?: string | null; business_id?: string };
  if (!d.customer_id || !d.customer_email || !d.business_id || !isCustomerId(d.customer_id)) return null;
  return { customer_id: d.customer_id, customer_email: d.customer_email, business_id: d.business_id };
}
