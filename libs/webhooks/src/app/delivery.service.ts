import type { Database } from '@lib/database';
import { Page, PageRequest, newId } from '@lib/http';
import { WebhookError } from '../domain/errors';
import type { WebhookEndpointService } from './endpoint.service';
import { EventActor } from '../read/event-source';
import { API_VERSION, TEST_EVENT_TYPE } from '../domain/event-types';
import type { ApiEvent } from '../read/events.projector';
import { DeliveryFilters, DeliveryRow, DeliveryStore, WebhookDelivery, deliveryView } from '../delivery/delivery-store';
import { WebhookSender } from '../delivery/http-sender';
import { WebhookSecretStore } from './secret-store';

const DELIVERY_ID = /^dlv_[0-9A-Za-z]{1,64}$/;

/**
 * The delivery log and the two manual sends (issue 5 point 5): a test event to an endpoint and
 * the resend of a delivery. Both send at once, from the calling process, through the same
 * SSRF-checked WebhookSender as the dispatcher, and answer with the delivery as it then is.
 * A test delivery is tried once (no retries); a resend adds a `manual` attempt and leaves the
 * automatic schedule alone (success ends it).
 */
export class WebhookDeliveryService {
  private readonly store: DeliveryStore;
  private readonly secrets: WebhookSecretStore;
  private readonly now: () => Date;

  constructor(
    db: Database,
    private readonly endpoints: WebhookEndpointService,
    private readonly sender: WebhookSender,
    options: { now?: () => Date } = {},
  ) {
    this.store = new DeliveryStore(db);
    this.now = options.now ?? (() => new Date());
    this.secrets = new WebhookSecretStore(db, { now: this.now });
  }

  /** Sends a `webhook.test` event to an endpoint (enabled or not); 404 for an unknown or deleted one. */
  async sendTest(businessId: string, webhookId: string, context: { actor: EventActor; mode: 'live' | 'test' }): Promise<WebhookDelivery> {
    const endpoint = await this.endpoints.get(businessId, webhookId);
    const now = this.now();
    const payload: ApiEvent = {
      id: newId('evt'),
      kind: 'event',
      type: TEST_EVENT_TYPE,
      subject: { kind: 'webhook', id: endpoint.id },
      data: endpoint as unknown as Record<string, unknown>,
      actor: context.actor,
      mode: context.mode,
      api_version: API_VERSION,
      created_at: now.toISOString(),
    };
    const id = newId('dlv');
    await this.store.insertTest({ id, business_id: businessId, webhook_id: endpoint.id, payload }, now);
    const result = await this.sender.send({ url: endpoint.url, eventId: payload.id, body: JSON.stringify(payload), secrets: await this.signingSecrets(endpoint.id) });
    return deliveryView(await this.store.recordTest(id, result, this.now()));
  }

  /** Sends a delivery again now (trigger `manual`); 404 for an unknown delivery or a deleted endpoint. */
  async resend(businessId: string, deliveryId: string, segments: string[] | null): Promise<WebhookDelivery> {
    const row = await this.row(businessId, deliveryId, segments);
    const endpoint = await this.endpoints.row(businessId, row.webhook_id);
    if (!endpoint || endpoint.deleted_at) throw new WebhookError('not_found', `The webhook endpoint of delivery ${deliveryId} was deleted.`);
    const result = await this.sender.send({ url: endpoint.url, eventId: row.event_id, body: JSON.stringify(row.payload), secrets: await this.signingSecrets(row.webhook_id) });
    return deliveryView((await this.store.recordOther(row.id, 'manual', result, this.now()))!);
  }

  async get(businessId: string, deliveryId: string, segments: string[] | null): Promise<WebhookDelivery> {
    return deliveryView(await this.row(businessId, deliveryId, segments));
  }

  list(list: string, businessId: string, filters: DeliveryFilters, segments: string[] | null, page: PageRequest): Promise<Page<WebhookDelivery>> {
    return this.store.list(list, businessId, filters, segments, page);
  }

  private async row(businessId: string, deliveryId: string, segments: string[] | null): Promise<DeliveryRow> {
    const row = DELIVERY_ID.test(deliveryId) ? await this.store.get(deliveryId) : null;
    if (!row || row.business_id !== businessId || (segments !== null && !segments.includes(row.event_type.split('.')[0]))) {
      throw new WebhookError('not_found', `No webhook delivery ${deliveryId}.`);
    }
    return row;
  }

  private async signingSecrets(webhookId: string): Promise<string[]> {
    const secrets = await this.secrets.signingSecrets(webhookId);
    if (secrets.length === 0) throw new Error(`webhook endpoint ${webhookId} has no active signing secret`);
    return secrets;
  }
}
