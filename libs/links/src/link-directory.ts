import { Injectable } from '@nestjs/common';
import { DomainRefusal } from '@lib/domain';
import { CommandRunner, WriteMeta, metadataFor } from '@lib/eventstore';
import type { LinkForCheckout, LinkGate } from '@lib/payments';
import { linkDecider } from './link.decider';
import { LinksReadModel } from './links.read-model';
import { LINK_STREAM } from './stream-categories';

/**
 * The payments capability's LINK_GATE (decision 0030): the link a code names for POST /checkouts
 * (from the read model: a link's changes wait for it before they answer), the payment a link
 * makes recorded on the link's stream (decided there: an archived, disabled or deleted link
 * makes none), and whether a link still has a checkout page (request-remainder).
 */
@Injectable()
export class LinkDirectory implements LinkGate {
  constructor(
    private readonly read: LinksReadModel,
    private readonly runner: CommandRunner,
  ) {}

  async byCode(code: string): Promise<LinkForCheckout> {
    const row = await this.read.byCode(code);
    if (row === null || row.status === 'disabled') throw new DomainRefusal('link_not_found', 'No active link with this code.', 'link_code');
    if (row.status === 'archived') throw new DomainRefusal('link_archived', 'This link is archived.', 'link_code');
    return {
      id: row.id,
      businessId: row.business_id,
      mode: row.mode === 'live' ? 'live' : 'test',
      name: row.name,
      description: row.description,
      amount: Number(row.amount),
      currency: row.currency,
      rails: row.rails,
      assets: row.assets,
      successUrl: row.success_url,
      askEmail: row.ask_email,
      metadata: row.metadata,
    };
  }

  async recordPayment(linkId: string, paymentId: string, meta: WriteMeta): Promise<void> {
    await this.runner.run(linkDecider, LINK_STREAM.stream(linkId), { type: 'RecordLinkPayment', paymentId }, { context: undefined, metadata: metadataFor(meta), waitForReadModels: false });
  }

  async pageUrl(linkId: string): Promise<string | null> {
    return this.read.urlOf(linkId);
  }

  async hasCheckoutPage(linkId: string): Promise<boolean> {
    return (await this.read.status(linkId)) === 'active';
  }
}
