import { Inject, Injectable } from '@nestjs/common';
import { DomainRefusal, foldWith } from '@lib/domain';
import { EVENT_STORE, EventStore, readStreamOrEmpty } from '@lib/eventstore';
import type { CustomerGate } from '@lib/payments';
import { emailClaimDecider, ownerOf } from './customer.decider';
import { CustomersReadModel } from './customers.read-model';
import { emailFingerprint } from './identity';
import { CUSTOMER_EMAIL_STREAM } from './stream-categories';

/**
 * Which customer an e-mail address names, and whether it is blocked (decision 0029). The owner
 * comes from the address's claim stream (read at its latest revision: a claim or release is seen
 * at once); the blocked flag from the `customers` read model, which a block waits for before it
 * answers. This is the payments capability's CUSTOMER_GATE.
 */
@Injectable()
export class CustomerDirectory implements CustomerGate {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly read: CustomersReadModel,
  ) {}

  /** The customer the address names now: its holder, else its derived customer. */
  async ownerOf(businessId: string, email: string): Promise<{ customerId: string; holder: string | null; generation: number }> {
    const events = await readStreamOrEmpty(this.store, CUSTOMER_EMAIL_STREAM.stream(emailFingerprint(businessId, email)));
    const state = foldWith(emailClaimDecider, events);
    return { customerId: ownerOf(state, businessId, email), holder: state.holder, generation: state.generation };
  }

  async customerFor(businessId: string, email: string, field: string): Promise<string> {
    const { customerId } = await this.ownerOf(businessId, email);
    if (await this.read.anyBlocked(businessId, [customerId])) throw blocked(field);
    return customerId;
  }

  async assertNotBlocked(businessId: string, emails: readonly (string | null | undefined)[], field: string): Promise<void> {
    const given = [...new Set(emails.filter((e): e is string => typeof e === 'string' && e.trim() !== '').map((e) => e.trim().toLowerCase()))];
    const owners = await Promise.all(given.map(async (email) => (await this.ownerOf(businessId, email)).customerId));
    if (await this.read.anyBlocked(businessId, owners)) throw blocked(field);
  }
}

const blocked = (field: string) => new DomainRefusal('customer_blocked', 'The customer with this e-mail is blocked.', field);
