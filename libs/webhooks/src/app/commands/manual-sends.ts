import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { DeliveryStore } from '../../delivery/delivery-store';
import { SendResult, WebhookSender } from '../../delivery/http-sender';
import { EndpointQueries } from '../../read/endpoint-queries';
import { WebhookSecretStore } from '../secret-store';
import { WEBHOOKS_OPTIONS, WebhooksOptions, wallClock } from '../webhooks-options';

/**
 * What the manual sends share (a test event, a resend): they send from this process, not the
 * dispatcher, through the same SSRF-checked WebhookSender, signed with the endpoint's secrets as
 * they are now, and record the one attempt in the delivery log (`deliveries`); `endpoints` reads
 * the endpoint sent to.
 */
@Injectable()
export class ManualSends {
  readonly deliveries: DeliveryStore;
  readonly endpoints: EndpointQueries;

  constructor(
    @Inject(DATABASE) db: Sql,
    private readonly sender: WebhookSender,
    private readonly secrets: WebhookSecretStore,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: WebhooksOptions,
  ) {
    this.deliveries = new DeliveryStore(db);
    this.endpoints = new EndpointQueries(db);
  }

  /** The webhooks wall clock (WebhooksOptions.now, else the system's): the attempts' times. */
  now(): Date {
    return (this.options.now ?? wallClock)();
  }

  /** Sends `payload` to `url` once, as event `eventId` (the `webhook-id` header), signed with the endpoint's current secrets. */
  async send(webhookId: string, url: string, eventId: string, payload: unknown): Promise<SendResult> {
    return this.sender.send({ url, eventId, body: JSON.stringify(payload), secrets: await this.signingSecrets(webhookId) });
  }

  /** The secrets a manual send signs with now; an endpoint always has one once recorded. */
  private async signingSecrets(webhookId: string): Promise<string[]> {
    const found = await this.secrets.signingSecrets(webhookId);
    if (found.length === 0) throw new Error(`webhook endpoint ${webhookId} has no active signing secret`);
    return found;
  }
}
