import { foldWith } from '@lib/domain';
import { assertDistinctCategories } from '@lib/eventstore';
import {
  CUSTOMER_EMAIL_STREAM,
  CUSTOMER_STREAM,
  CUSTOMER_STREAM_CATEGORIES,
  CustomerCommand,
  CustomerEmailEvent,
  CustomerEvent,
  CustomerState,
  EmailClaimCommand,
  EmailClaimState,
  KnownFromPayments,
  customerDecider,
  derivedCustomerId,
  emailClaimDecider,
  ownerOf,
} from '@lib/customers';
import { customerIdFor } from '@lib/payments';
import { ALL_STREAM_CATEGORIES } from '@lib/wiring';
import { givenOn } from '../support/decider-spec';


/** given(events).when(command).then(events | refusal code and field), on the customers' deciders (decision 0029). */
const customers = (events: CustomerEvent[]) => givenOn<CustomerCommand, CustomerEvent, CustomerState>(customerDecider, events);
const claims = (events: CustomerEmailEvent[]) => givenOn<EmailClaimCommand, CustomerEmailEvent, EmailClaimState>(emailClaimDecider, events);

const created: CustomerEvent = { type: 'CustomerCreated', data: { customer_id: 'cst_a', business_id: 'biz_1', mode: 'test', email: 'ann@x.example', name: 'Ann', note: '', origin: 'api' } };
const known: KnownFromPayments = { businessId: 'biz_1', mode: 'test', email: 'bob@x.example', createdAt: '2026-01-01T00:00:00.000Z' };
const adopted: CustomerEvent = { type: 'CustomerCreated', data: { customer_id: 'cst_b', business_id: 'biz_1', mode: 'test', email: 'bob@x.example', name: null, note: '', origin: 'payment', created_at: '2026-01-01T00:00:00.000Z' } };

describe('customer decider', () => {
  it('creates a customer on an empty stream; a second creation is 409 customer_exists', () => {
    const create: CustomerCommand = { type: 'CreateCustomer', customerId: 'cst_a', businessId: 'biz_1', mode: 'test', email: 'ann@x.example', name: 'Ann', note: '' };
    customers([]).when(create).then([created]);
    customers([created]).when(create).refused('customer_exists', 'email');
  });

  it('updates the fields given, records all of them after the change, and nothing when nothing changes', () => {
    customers([created]).when({ type: 'UpdateCustomer', customerId: 'cst_a', businessId: 'biz_1', known: null, note: 'vip' }).then([{ type: 'CustomerUpdated', data: { email: 'ann@x.example', name: 'Ann', note: 'vip' } }]);
    customers([created]).when({ type: 'UpdateCustomer', customerId: 'cst_a', businessId: 'biz_1', known: null, name: null, email: 'ann@y.example' }).then([{ type: 'CustomerUpdated', data: { email: 'ann@y.example', name: null, note: '' } }]);
    customers([created]).when({ type: 'UpdateCustomer', customerId: 'cst_a', businessId: 'biz_1', known: null, name: 'Ann' }).then([]);
  });

  it('blocks and unblocks; doing it twice changes nothing', () => {
    const blocked: CustomerEvent = { type: 'CustomerBlocked', data: { customer_id: 'cst_a' } };
    customers([created]).when({ type: 'BlockCustomer', customerId: 'cst_a', businessId: 'biz_1', known: null }).then([blocked]);
    customers([created, blocked]).when({ type: 'BlockCustomer', customerId: 'cst_a', businessId: 'biz_1', known: null }).then([]);
    customers([created, blocked]).when({ type: 'UnblockCustomer', customerId: 'cst_a', businessId: 'biz_1', known: null }).then([{ type: 'CustomerUnblocked', data: { customer_id: 'cst_a' } }]);
    customers([created]).when({ type: 'UnblockCustomer', customerId: 'cst_a', businessId: 'biz_1', known: null }).then([]);
  });

  it('a customer known only from payments is recorded first (origin payment, its first payment’s time), then changed', () => {
    customers([]).when({ type: 'BlockCustomer', customerId: 'cst_b', businessId: 'biz_1', known }).then([adopted, { type: 'CustomerBlocked', data: { customer_id: 'cst_b' } }]);
    customers([]).when({ type: 'UpdateCustomer', customerId: 'cst_b', businessId: 'biz_1', known, name: 'Bob' }).then([adopted, { type: 'CustomerUpdated', data: { email: 'bob@x.example', name: 'Bob', note: '' } }]);
    // a change that changes nothing records nothing, not even the customer
    customers([]).when({ type: 'UnblockCustomer', customerId: 'cst_b', businessId: 'biz_1', known }).then([]);
  });

  it("another business's customer, or none at all, is 404 not_found", () => {
    customers([created]).when({ type: 'BlockCustomer', customerId: 'cst_a', businessId: 'biz_2', known: null }).refused('not_found');
    customers([]).when({ type: 'BlockCustomer', customerId: 'cst_a', businessId: 'biz_1', known: null }).refused('not_found');
    customers([]).when({ type: 'UpdateCustomer', customerId: 'cst_b', businessId: 'biz_2', known, name: 'x' }).refused('not_found');
  });
});

describe('e-mail claims (one customer per address and business)', () => {
  const claim = (customerId: string, derivedExists = false): EmailClaimCommand => ({ type: 'ClaimEmail', businessId: 'biz_1', email: 'Ann@X.example', customerId, derivedExists });
  const release = (customerId: string): EmailClaimCommand => ({ type: 'ReleaseEmail', businessId: 'biz_1', email: 'ann@x.example', customerId });
  const claimedBy = (customerId: string): CustomerEmailEvent => ({ type: 'CustomerEmailClaimed', data: { business_id: 'biz_1', email: 'Ann@X.example', customer_id: customerId } });
  const releasedBy = (customerId: string): CustomerEmailEvent => ({ type: 'CustomerEmailReleased', data: { business_id: 'biz_1', email: 'ann@x.example', customer_id: customerId } });
  const derived0 = derivedCustomerId('biz_1', 'ann@x.example', 0);

  it('an unclaimed address names its derived customer: the id payments have always recorded', () => {
    expect(derived0).toBe(customerIdFor('biz_1', 'ANN@x.example '));
    expect(ownerOf(foldWith(emailClaimDecider, []), 'biz_1', 'ann@x.example')).toBe(derived0);
  });

  it('a free address is claimed; the same claim again changes nothing; another customer’s claim is 409 customer_exists', () => {
    claims([]).when(claim('cst_x')).then([claimedBy('cst_x')]);
    claims([claimedBy('cst_x')]).when(claim('cst_x')).then([]);
    claims([claimedBy('cst_x')]).when(claim('cst_y')).refused('customer_exists', 'email');
  });

  it('an address whose derived customer exists (a payment named it) is taken, except by that customer', () => {
    claims([]).when(claim('cst_x', true)).refused('customer_exists', 'email');
    claims([]).when(claim(derived0, true)).then([claimedBy(derived0)]);
  });

  it('the holder releases it and the next derived customer is a new id; a release by anyone else changes nothing', () => {
    claims([claimedBy('cst_x')]).when(release('cst_x')).then([releasedBy('cst_x')]);
    claims([claimedBy('cst_x')]).when(release('cst_y')).then([]);
    claims([]).when(release(derived0)).then([releasedBy(derived0)]);
    const after = foldWith(emailClaimDecider, [claimedBy(derived0), releasedBy(derived0)]);
    expect(after).toEqual({ holder: null, generation: 1 });
    const next = ownerOf(after, 'biz_1', 'ann@x.example');
    expect(next).toMatch(/^cst_[A-Za-z0-9]{24}$/);
    expect(next).not.toBe(derived0);
    expect(derivedCustomerId('biz_2', 'ann@x.example', 1)).not.toBe(next);
  });
});

describe('customer stream names', () => {
  it('customer-<cst_id> and customer_email-<64 hex>, neither a prefix of another category', () => {
    expect(CUSTOMER_STREAM.stream('cst_abc')).toBe('customer-cst_abc');
    expect(CUSTOMER_STREAM.owns(`customer_email-${'0'.repeat(64)}`)).toBe(false);
    expect(CUSTOMER_EMAIL_STREAM.owns('customer-cst_abc')).toBe(false);
    expect(ALL_STREAM_CATEGORIES).toEqual(expect.arrayContaining([...CUSTOMER_STREAM_CATEGORIES]));
    expect(() => assertDistinctCategories(ALL_STREAM_CATEGORIES)).not.toThrow();
  });
});
