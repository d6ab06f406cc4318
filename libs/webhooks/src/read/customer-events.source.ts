import {
  CUSTOMER_PAYMENT_EVENT_TYPES,
  CUSTOMER_STREAM,
  CustomerPayment,
  CustomerStatsTally,
  CustomerView,
  EMPTY_STATS_TALLY,
  asCustomerEvent,
  customerPaymentChange,
  customerView,
  evolveCustomerPayment,
  tallyColumns,
  tallyPayment,
} from '@lib/customers';
import type { RecordedEvent } from '@lib/eventstore';
import { PAYMENT_STREAM, eventTime } from '@lib/payments';
import { ApiEventDraft, ApiEventSource, EventSourceLink } from './event-source';

/** A customer as the source folds it: the object's own fields, its business and mode, and the tally of its stats. */
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
  /** Absent from views stored before events carried stats (no payments counted until `projections rebuild events`). */
  stats?: CustomerStatsTally;
}

/**
 * API events of customers (decision 0029): `customer.created` when a customer appears — POST
 * /customers, or the first payment whose `customer_email` names a new customer (its PaymentCreated
 * folds into the customer's view: viewKey `customer-<cst_id>`) — and `customer.updated` when a
 * change, a block or an unblock changes the customer object. A customer known from payments is
 * recorded on its stream (CustomerCreated) the first time the business changes it: that gives no
 * second `customer.created`.
 *
 * `data` is the customer object as GET /customers/{id} returns it at that event, stats included:
 * the payment events the `customers` projection counts (customerPaymentChange) fold into the
 * customer's view too — a PaymentCreated naming the customer links its payment stream to the
 * customer's view (the link keeps what the stats count of that payment), so the payment's later
 * events, which do not name the customer, move its tally — rendered by the same rules and the same
 * customerView. Stats moving alone give no event (every payment would): only the customer's own
 * changes do.
 */
export const customerEventSource: ApiEventSource<CustomerEventView, CustomerPayment> = {
  name: 'customer',
  types: ['customer.created', 'customer.updated'],
  accepts: (event) => CUSTOMER_STREAM.owns(event.stream) || (PAYMENT_STREAM.owns(event.stream) && CUSTOMER_PAYMENT_EVENT_TYPES.includes(event.type)),
  link(link: EventSourceLink<CustomerPayment> | null, event: RecordedEvent): EventSourceLink<CustomerPayment> | null {
    const change = customerPaymentChange(event);
    if (change === null) return link;
    const payment = evolveCustomerPayment(link?.data ?? null, change);
    return payment && { view_key: CUSTOMER_STREAM.stream(payment.customer_id), data: payment };
  },
  viewKey(event: RecordedEvent): string | null {
    if (CUSTOMER_STREAM.owns(event.stream)) return event.stream;
    const change = customerPaymentChange(event);
    return change?.type === 'created' ? CUSTOMER_STREAM.stream(change.payment.customer_id) : null;
  },
  reduce(view: CustomerEventView | null, event: RecordedEvent, link): CustomerEventView | null {
    const at = eventTime(event);
    if (PAYMENT_STREAM.owns(event.stream)) {
      const before = link?.before?.data ?? null;
      const after = link?.after?.data ?? null;
      if (after === null) return view;
      const change = customerPaymentChange(event);
      const known: CustomerEventView | null =
        view ??
        (change?.type === 'created'
          ? { id: after.customer_id, business_id: after.business_id, mode: change.mode, email: change.email, name: null, note: '', blocked: false, created_at: at, updated_at: at, stats: EMPTY_STATS_TALLY }
          : null);
      return known && { ...known, stats: tallyPayment(known.stats ?? EMPTY_STATS_TALLY, before, after) };
    }
    const customer = asCustomerEvent(event);
    if (!customer) return view;
    switch (customer.type) {
      case 'CustomerCreated': {
        const d = customer.data;
        const created = d.created_at ?? at;
        if (view) return { ...view, email: d.email, name: d.name, note: d.note };
        return { id: d.customer_id, business_id: d.business_id, mode: d.mode, email: d.email, name: d.name, note: d.note, blocked: false, created_at: created, updated_at: created, stats: EMPTY_STATS_TALLY };
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
    if (!CUSTOMER_STREAM.owns(event.stream) || event.type === 'CustomerCreated') return [];
    const shown = (view: CustomerEventView) => JSON.stringify({ ...customerObject(view), stats: null, updated_at: null });
    return shown(before) === shown(after) ? [] : [draft('customer.updated')];
  },
};

/** The customer object of a view, through the read model's own customerView. */
function customerObject(view: CustomerEventView): CustomerView {
  return customerView({ ...view, ...tallyColumns(view.stats ?? EMPTY_STATS_TALLY) });
}
