import { CUSTOMER_STREAM, CustomerView, asCustomerEvent, isCustomerId } from '@lib/customers';
import type { RecordedEvent } from '@lib/eventstore';
import { PAYMENT_STREAM, eventTime } from '@lib/payments';
import { ApiEventDraft, ApiEventSource } from './event-source';

/** A customer as the source folds it: the object's own fields, its business and mode. */
export interface CustomerEventView {
  id: string;
  business_id: string;
  mode: 'live' | 'test';
  email: string;
  name: string | null;
  note: string;
  blocked: boolean;
  created_at: string;
  updated_at: string;
}

/**
 * API events of customers (decision 0029): `customer.created` when a customer appears — POST
 * /customers, or the first payment whose `customer_email` names a new customer (its PaymentCreated
 * folds into the customer's view: viewKey `customer-<cst_id>`) — and `customer.updated` when a
 * change, a block or an unblock changes the customer object. A customer known from payments is
 * recorded on its stream (CustomerCreated) the first time the business changes it: that gives no
 * second `customer.created`.
 *
 * `data` is the customer object as GET /customers/{id} returns it, except `stats`, which is null:
 * stats move with every payment without an event, and this projection (replayed on its own, from
 * the log) cannot count them deterministically at a customer event; read the customer for them.
 */
export const customerEventSource: ApiEventSource<CustomerEventView> = {
  name: 'customer',
  types: ['customer.created', 'customer.updated'],
  accepts: (event) => CUSTOMER_STREAM.owns(event.stream) || (event.type === 'PaymentCreated' && PAYMENT_STREAM.owns(event.stream)),
  viewKey(event: RecordedEvent): string | null {
    if (CUSTOMER_STREAM.owns(event.stream)) return event.stream;
    const id = (event.data as { customer_id?: string | null }).customer_id;
    return typeof id === 'string' && isCustomerId(id) ? CUSTOMER_STREAM.stream(id) : null;
  },
  reduce(view: CustomerEventView | null, event: RecordedEvent): CustomerEventView | null {
    const at = eventTime(event);
    if (event.type === 'PaymentCreated') {
      if (view) return view;
      const d = event.data as { customer_id?: string | null; customer_email?: string | null; business_id?: string; mode?: string };
      if (!d.customer_id || !d.customer_email || !d.business_id) return null;
      return { id: d.customer_id, business_id: d.business_id, mode: d.mode === 'live' ? 'live' : 'test', email: d.customer_email, name: null, note: '', blocked: false, created_at: at, updated_at: at };
    }
    const customer = asCustomerEvent(event);
    if (!customer) return view;
    switch (customer.type) {
      case 'CustomerCreated': {
        const d = customer.data;
        const created = d.created_at ?? at;
        if (view) return { ...view, email: d.email, name: d.name, note: d.note };
        return { id: d.customer_id, business_id: d.business_id, mode: d.mode, email: d.email, name: d.name, note: d.note, blocked: false, created_at: created, updated_at: created };
      }
      case 'CustomerUpdated':
        return view && { ...view, email: customer.data.email, name: customer.data.name, note: customer.data.note, updated_at: at };
      case 'CustomerBlocked':
      case 'CustomerUnblocked':
        return view && { ...view, blocked: customer.type === 'CustomerBlocked', updated_at: at };
    }
  },
  map(event: RecordedEvent, { before, after }): ApiEventDraft[] {
    if (!after) return [];
    const draft = (type: string): ApiEventDraft => ({
      type,
      subject: { kind: 'customer', id: after.id },
      data: customerObject(after) as unknown as Record<string, unknown>,
      business_id: after.business_id,
      mode: after.mode,
      created_at: after.updated_at,
    });
    if (!before) return [draft('customer.created')];
    if (event.type === 'PaymentCreated' || event.type === 'CustomerCreated') return [];
    const shown = (view: CustomerEventView) => JSON.stringify({ ...customerObject(view), updated_at: null });
    return shown(before) === shown(after) ? [] : [draft('customer.updated')];
  },
};

function customerObject(view: CustomerEventView): CustomerView {
  return { kind: 'customer', id: view.id, name: view.name, email: view.email, blocked: view.blocked, note: view.note, stats: null, created_at: view.created_at, updated_at: view.updated_at };
}
