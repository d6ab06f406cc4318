import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { DomainRefusal } from '@lib/domain';
import { CommandRunner, EVENT_STORE, EventStore, WriteMeta, metadataFor, readStreamOrEmpty } from '@lib/eventstore';
import { BusinessClock } from '@lib/payments';
import { TimerStore } from '@lib/timers';
import { BlockCustomer, CustomerCommand, CustomerRecord, KnownFromPayments, customerDecider, emailClaimDecider } from '../customer.decider';
import { CustomerDirectory } from '../customer-directory';
import { CustomersReadModel } from '../customers.read-model';
import { CustomerView } from '../views';
import { emailFingerprint } from '../identity';
import { CUSTOMER_EMAIL_STREAM, CUSTOMER_STREAM, isCustomerId } from '../stream-categories';

/** The acting business as the customer use cases need it. */
export interface CustomerBusiness {
  id: string;
  simulated: boolean;
}

/**
 * What the customer use cases share (decision 0029): the customer as it is now (its stream, else
 * the read model's customer known from payments), e-mail claims and releases, deciding on the
 * customer's stream through the CommandRunner (which waits for the read models), the answer.
 */
@Injectable()
export class CustomerWrites {
  /**
   * The business's own time (decision 0010; decision 0029, addendum 2026-11-29): a customer's events
   * are recorded at it, as its payments are, so a simulated business's test clock moves both. The
   * clock BusinessClock reads, over a TimerStore of its own (PaymentsCoreModule, which provides the
   * app's, is not imported by this global module; both read the same offsets).
   */
  private readonly clock: BusinessClock;

  constructor(
    private readonly runner: CommandRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATABASE) db: Database,
    readonly directory: CustomerDirectory,
    readonly read: CustomersReadModel,
  ) {
    this.clock = new BusinessClock(new TimerStore(db));
  }

  /**
   * Read your writes before a read of the read models: a payment is answered before they have it
   * (decision 0019), so the customer it made appears there a moment later; wait for the writes
   * this process answered that way for the business.
   */
  async barrier(businessId: string): Promise<void> {
    if (this.runner.hasUnseenWrites(businessId)) await this.runner.readBarrier(businessId);
  }

  /** The business's customer: recorded on its stream, or known from payments; not_found otherwise (another business's included). */
  async load(businessId: string, customerId: string): Promise<{ current: CustomerRecord; known: KnownFromPayments | null }> {
    const notFound = new DomainRefusal('not_found', 'No customer with this id.');
    if (!isCustomerId(customerId)) throw notFound;
    await this.barrier(businessId);
    const recorded = (await this.runner.state(customerDecider, CUSTOMER_STREAM.stream(customerId))).customer;
    if (recorded !== null) {
      if (recorded.businessId !== businessId) throw notFound;
      return { current: recorded, known: null };
    }
    const known = await this.read.knownFromPayments(businessId, customerId);
    if (known === null) throw notFound;
    return { current: { id: customerId, businessId, mode: known.mode, email: known.email, name: null, note: '', blocked: false }, known };
  }

  /** Whether a customer with this id exists anywhere (a payment named it, or its stream was written). */
  async exists(customerId: string): Promise<boolean> {
    if (await this.read.exists(customerId)) return true;
    return (await readStreamOrEmpty(this.store, CUSTOMER_STREAM.stream(customerId))).length > 0;
  }

  /** Takes the address for the customer: 409 customer_exists when another customer has it. */
  async claim(businessId: string, email: string, customerId: string, meta: WriteMeta): Promise<void> {
    const owner = await this.directory.ownerOf(businessId, email);
    const derivedExists = owner.holder === null && owner.customerId !== customerId && (await this.exists(owner.customerId));
    await this.runner.run(emailClaimDecider, CUSTOMER_EMAIL_STREAM.stream(emailFingerprint(businessId, email)), { type: 'ClaimEmail', businessId, email, customerId, derivedExists }, {
      context: undefined,
      metadata: metadataFor(meta),
      waitForReadModels: false,
    });
  }

  /** Leaves the address (the customer moved to another): the next customer it names gets a new id. */
  async release(businessId: string, email: string, customerId: string, meta: WriteMeta): Promise<void> {
    await this.runner.run(emailClaimDecider, CUSTOMER_EMAIL_STREAM.stream(emailFingerprint(businessId, email)), { type: 'ReleaseEmail', businessId, email, customerId }, {
      context: undefined,
      metadata: metadataFor(meta),
      waitForReadModels: false,
    });
  }

  /** Decides on the customer's stream at the business's now (its test clock's, for a simulated business) and waits for the read models (read your writes). */
  async decide(customerId: string, command: CustomerCommand, meta: WriteMeta): Promise<void> {
    const occurredAt = (await this.clock.now(command.businessId)).toISOString();
    await this.runner.run(customerDecider, CUSTOMER_STREAM.stream(customerId), command, { context: undefined, metadata: { ...metadataFor(meta), occurredAt } });
  }

  /** Blocks or unblocks the customer (what payments made known of it included), then answers it as it now is. */
  async setBlocked(type: BlockCustomer['type'], businessId: string, customerId: string, meta: WriteMeta): Promise<CustomerView> {
    const { known } = await this.load(businessId, customerId);
    await this.decide(customerId, { type, customerId, businessId, known }, meta);
    return this.answer(businessId, customerId);
  }

  /** The customer as GET /customers/{id} returns it, once the read models have it. */
  async answer(businessId: string, customerId: string): Promise<CustomerView> {
    const customer = await this.read.get(businessId, customerId);
    if (customer === null) throw new Error(`customer ${customerId} of ${businessId}: not in the read model after its write`);
    return customer;
  }
}
