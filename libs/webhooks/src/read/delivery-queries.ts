import type { Sql } from '@lib/database';
import { Page, PageRequest } from '@lib/http';
import { DeliveryFilters, DeliveryRow, DeliveryStore, WebhookDelivery } from '../delivery/delivery-store';
import { WebhookError } from '../domain/errors';

const DELIVERY_ID = /^dlv_[0-9A-Za-z]{1,64}$/;

/**
 * Reads of the delivery log (`webhook_deliveries`). `segments`: the first segments of the event
 * types the caller may read (a restricted key), null for all.
 */
export class DeliveryQueries {
  private readonly store: DeliveryStore;

  constructor(db: Sql) {
    this.store = new DeliveryStore(db);
  }

  list(list: string, businessId: string, filters: DeliveryFilters, segments: string[] | null, page: PageRequest): Promise<Page<WebhookDelivery>> {
    return this.store.list(list, businessId, filters, segments, page);
  }

  /** A delivery of the business the caller may read; 404 not_found otherwise. */
  async row(businessId: string, deliveryId: string, segments: string[] | null): Promise<DeliveryRow> {
    const row = DELIVERY_ID.test(deliveryId) ? await this.store.get(deliveryId) : null;
    if (!row || row.business_id !== businessId || (segments !== null && !segments.includes(row.event_type.split('.')[0]))) {
      throw new WebhookError('not_found', `No webhook delivery ${deliveryId}.`);
    }
    return row;
  }
}
