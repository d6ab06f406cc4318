import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { Page, businessFilters, pageRequest } from '@lib/http';
import { WebhookDelivery, cursorFilters } from '../../../delivery/delivery-store';
import { DeliveryQueries } from '../../../read/delivery-queries';
import { EndpointQueries } from '../../../read/endpoint-queries';
import { readQuery, readers } from '../query-params';
import { ListDeliveriesQuery } from './list-deliveries.query';

const FILTERS = { status: readers.status, event_type: readers.deliveryEventType, event_id: readers.id('evt'), subject_id: readers.objectId };
const ALL_FILTERS = { webhook_id: readers.id('whk'), ...FILTERS };

/** Reads the query string strictly (400 naming the parameter), checks the endpoint, then a page of the log. */
@QueryHandler(ListDeliveriesQuery)
export class ListDeliveriesHandler implements IQueryHandler<ListDeliveriesQuery> {
  private readonly deliveries: DeliveryQueries;
  private readonly endpoints: EndpointQueries;

  constructor(@Inject(DATABASE) db: Sql) {
    this.deliveries = new DeliveryQueries(db);
    this.endpoints = new EndpointQueries(db);
  }

  async execute({ businessId, query, segments, webhookId }: ListDeliveriesQuery): Promise<Page<WebhookDelivery>> {
    if (webhookId === null) {
      const { values, page } = readQuery(query, ALL_FILTERS);
      return this.deliveries.list('webhook_deliveries', businessId, values, segments, pageRequest('webhook_deliveries', businessFilters(businessId, cursorFilters(values)), page));
    }
    const { values, page } = readQuery(query, FILTERS);
    await this.endpoints.get(businessId, webhookId); // 404 for an unknown or deleted endpoint
    const filters = { ...values, webhook_id: webhookId };
    const list = 'webhooks/deliveries';
    return this.deliveries.list(list, businessId, filters, segments, pageRequest(list, businessFilters(businessId, cursorFilters(filters)), page));
  }
}
