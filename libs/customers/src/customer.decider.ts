import { Decider, DomainRefusal, decideBy, ignoreUnknown } from '@lib/domain';
import { CustomerCreatedData, CustomerEmailEvent, CustomerEvent, asCustomerEmailEvent, asCustomerEvent } from './events';
import { derivedCustomerId } from './identity';

/**
 * The customers capability's pure deciders (decision 0029), with given/when/then tests in
 * test/customers/customer.decider.spec.ts:
 * - `customerDecider`: one customer's stream (`customer-<cst_id>`);
 * - `emailClaimDecider`: one address's claim stream (`customer_email-<fingerprint>`).
 */

export interface CustomerRecord {
  id: string;
  businessId: string;
  mode: 'live' | 'test';
  email: string;
  name: string | null;
  note: string;
  blocked: boolean;
}

export interface CustomerState {
  customer: CustomerRecord | null;
}

/**
 * A customer known only from payments (the `customers` read model's row, origin `payment`): its
 * stream is empty until the business first changes it, and that change records it first.
 */
export interface KnownFromPayments {
  businessId: string;
  mode: 'live' | 'test';
  email: string;
  createdAt: string;
}

export interface CreateCustomer {
  type: 'CreateCustomer';
  customerId: string;
  businessId: string;
  mode: 'live' | 'test';
  email: string;
  name: string | null;
  note: string;
}

/** The fields to change (left out: unchanged). */
export interface UpdateCustomer {
  type: 'UpdateCustomer';
  customerId: string;
  businessId: string;
  known: KnownFromPayments | null;
  email?: string;
  name?: string | null;
  note?: string;
}

export interface BlockCustomer {
  type: 'BlockCustomer' | 'UnblockCustomer';
  customerId: string;
  businessId: string;
  known: KnownFromPayments | null;
}

export type CustomerCommand = CreateCustomer | UpdateCustomer | BlockCustomer;

const notFound = () => new DomainRefusal('not_found', 'No customer with this id.');

/** The customer a command acts on: its stream's, or one known from payments recorded now (its CustomerCreated first), else not_found. */
function subject(command: UpdateCustomer | BlockCustomer, state: CustomerState): { customer: CustomerRecord; recorded: CustomerEvent[] } {
  if (state.customer !== null) {
    if (state.customer.businessId !== command.businessId) throw notFound();
    return { customer: state.customer, recorded: [] };
  }
  const known = command.known;
  if (known === null || known.businessId !== command.businessId) throw notFound();
  const created: CustomerCreatedData = {
    customer_id: command.customerId,
    business_id: known.businessId,
    mode: known.mode,
    email: known.email,
    name: null,
    note: '',
    origin: 'payment',
    created_at: known.createdAt,
  };
  return { customer: recordOf(created), recorded: [{ type: 'CustomerCreated', data: created }] };
}

function recordOf(data: CustomerCreatedData): CustomerRecord {
  return { id: data.customer_id, businessId: data.business_id, mode: data.mode, email: data.email, name: data.name, note: data.note, blocked: false };
}

export const customerDecider: Decider<CustomerCommand, CustomerEvent, CustomerState> = {
  initialState: { customer: null },
  decide: (command, state) =>
    decideBy<CustomerCommand, CustomerState, void, CustomerEvent>(
      {
        CreateCustomer(c, s) {
          if (s.customer !== null) throw new DomainRefusal('customer_exists', 'Another customer has this e-mail.', 'email');
          return [{ type: 'CustomerCreated', data: { customer_id: c.customerId, business_id: c.businessId, mode: c.mode, email: c.email, name: c.name, note: c.note, origin: 'api' } }];
        },
        UpdateCustomer(c, s) {
          const { customer, recorded } = subject(c, s);
          const after = { email: c.email ?? customer.email, name: c.name === undefined ? customer.name : c.name, note: c.note ?? customer.note };
          const changed = after.email !== customer.email || after.name !== customer.name || after.note !== customer.note;
          return changed ? [...recorded, { type: 'CustomerUpdated', data: after }] : [];
        },
        BlockCustomer(c, s) {
          const { customer, recorded } = subject(c, s);
          return customer.blocked ? [] : [...recorded, { type: 'CustomerBlocked', data: { customer_id: customer.id } }];
        },
        UnblockCustomer(c, s) {
          const { customer, recorded } = subject(c, s);
          return customer.blocked ? [...recorded, { type: 'CustomerUnblocked', data: { customer_id: customer.id } }] : [];
        },
      },
      command,
      state,
      undefined,
    ),
  evolve(state, event) {
    switch (event.type) {
      case 'CustomerCreated':
        return { customer: recordOf(event.data) };
      case 'CustomerUpdated':
        return state.customer === null ? state : { customer: { ...state.customer, email: event.data.email, name: event.data.name, note: event.data.note } };
      case 'CustomerBlocked':
        return state.customer === null ? state : { customer: { ...state.customer, blocked: true } };
      case 'CustomerUnblocked':
        return state.customer === null ? state : { customer: { ...state.customer, blocked: false } };
      default:
        return ignoreUnknown(event, state);
    }
  },
  fromStored: asCustomerEvent,
};

/** Who holds an address: a customer's claim, or nobody (then the derived customer of `generation`). */
export interface EmailClaimState {
  holder: string | null;
  /** How many times a customer left the address. */
  generation: number;
}

export const initialEmailClaimState: EmailClaimState = { holder: null, generation: 0 };

/** The customer an address names now (decision 0029): its holder, else its derived customer. */
export function ownerOf(state: EmailClaimState, businessId: string, email: string): string {
  return state.holder ?? derivedCustomerId(businessId, email, state.generation);
}

export interface ClaimEmail {
  type: 'ClaimEmail';
  businessId: string;
  email: string;
  customerId: string;
  /** Whether the address's derived customer exists (a payment named it, or its stream was written): then the address is taken. */
  derivedExists: boolean;
}

export interface ReleaseEmail {
  type: 'ReleaseEmail';
  businessId: string;
  email: string;
  customerId: string;
}

export type EmailClaimCommand = ClaimEmail | ReleaseEmail;

/**
 * An address is claimed by a customer when nobody holds it and its derived customer is that
 * customer or does not exist; held by another customer, or named by an existing derived
 * customer, it is 409 customer_exists. Claiming it again changes nothing. A release by its owner
 * frees it and counts a generation (the next derived customer is a new id); by anyone else it
 * changes nothing.
 */
export const emailClaimDecider: Decider<EmailClaimCommand, CustomerEmailEvent, EmailClaimState> = {
  initialState: initialEmailClaimState,
  decide(command, state) {
    const owner = ownerOf(state, command.businessId, command.email);
    const data = { business_id: command.businessId, email: command.email, customer_id: command.customerId };
    if (command.type === 'ClaimEmail') {
      if (state.holder === command.customerId) return [];
      const taken = state.holder !== null || (owner !== command.customerId && command.derivedExists);
      if (taken) throw new DomainRefusal('customer_exists', 'Another customer has this e-mail.', 'email');
      return [{ type: 'CustomerEmailClaimed', data }];
    }
    return owner === command.customerId ? [{ type: 'CustomerEmailReleased', data }] : [];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'CustomerEmailClaimed':
        return { ...state, holder: event.data.customer_id };
      case 'CustomerEmailReleased':
        return { holder: null, generation: state.generation + 1 };
      default:
        return ignoreUnknown(event, state);
    }
  },
  fromStored: asCustomerEmailEvent,
};
