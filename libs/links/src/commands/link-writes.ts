import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { DomainRefusal } from '@lib/domain';
import { CommandRunner, WriteMeta, metadataFor } from '@lib/eventstore';
import { BusinessClock } from '@lib/payments';
import { TimerStore } from '@lib/timers';
import { MoneyError, validatePaymentAmount } from '@lib/money';
import { LinkCommand, linkDecider } from '../link.decider';
import { LinksReadModel } from '../links.read-model';
import { LINK_STREAM, isLinkId } from '../stream-categories';
import { LinkView } from '../views';

/** The acting business as the link use cases need it. */
export interface LinkBusiness {
  id: string;
  simulated: boolean;
}

/**
 * The link's price: 400 invalid_request on `amount` when it is out of range for the currency (as a
 * payment's). The card bound of a card-only link is the decider's (`checkCardOnlyPrice`, on the
 * fields after the change).
 */
export function checkLinkPrice(amount: number, currency: string): void {
  try {
    validatePaymentAmount(amount, currency);
  } catch (error) {
    if (error instanceof MoneyError) throw new DomainRefusal('invalid_request', error.message, error.field ?? 'amount');
    throw error;
  }
}

/** What the link use cases share (decision 0030): deciding on the link's stream through the CommandRunner (which waits for the read models), and the answer. */
@Injectable()
export class LinkWrites {
  /**
   * The business's own time (decision 0010; decision 0029, addendum 2026-11-29): a link's events are
   * recorded at it, as its payments are. The clock BusinessClock reads, over a TimerStore of its own
   * (this global module does not import PaymentsCoreModule; both read the same offsets).
   */
  private readonly clock: BusinessClock;

  constructor(
    private readonly runner: CommandRunner,
    readonly read: LinksReadModel,
    @Inject(DATABASE) db: Database,
  ) {
    this.clock = new BusinessClock(new TimerStore(db));
  }

  /**
   * Decides on the link's stream at its business's now (the command's business, else `businessId`,
   * else the link's own, read first) and waits for the read models (read your writes); not_found
   * for an id that is no link id.
   */
  async decide(linkId: string, command: LinkCommand | ((state: Parameters<typeof linkDecider.decide>[1]) => LinkCommand), meta: WriteMeta, businessId?: string): Promise<void> {
    if (!isLinkId(linkId)) throw new DomainRefusal('not_found', 'No link with this id.');
    const business = typeof command !== 'function' && 'businessId' in command ? command.businessId : (businessId ?? (await this.runner.state(linkDecider, LINK_STREAM.stream(linkId))).link?.businessId);
    const occurredAt = (await this.clock.now(business)).toISOString();
    await this.runner.run(linkDecider, LINK_STREAM.stream(linkId), command, { context: undefined, metadata: { ...metadataFor(meta), occurredAt } });
  }

  /** Decides a command of the link's business on the link, then answers the link as it now is (archive, restore). */
  async change(businessId: string, linkId: string, command: LinkCommand, meta: WriteMeta): Promise<LinkView> {
    await this.decide(linkId, command, meta);
    return this.answer(businessId, linkId);
  }

  /** The link as GET /links/{id} returns it, once the read models have it. */
  async answer(businessId: string, linkId: string): Promise<LinkView> {
    const link = await this.read.get(businessId, linkId);
    if (link === null) throw new Error(`link ${linkId} of ${businessId}: not in the read model after its write`);
    return link;
  }
}
