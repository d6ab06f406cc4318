import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { Page, businessFilters, pageRequest } from '@lib/http';
import { EndpointQueries } from '../../../read/endpoint-queries';
import type { WebhookEndpoint } from '../../../read/views';
import { readQuery } from '../query-params';
import { ListEndpointsQuery } from './list-endpoints.query';

/** Reads the query string strictly (400 naming the parameter), then a page of `webhook_endpoints`. */
@QueryHandler(ListEndpointsQuery)
export class ListEndpointsHandler implements IQueryHandler<ListEndpointsQuery> {
  private readonly endpoints: EndpointQueries;

  constructor(@Inject(DATABASE) db: Sql) {
    this.endpoints = new EndpointQueries(db);
  }

  async execute({ businessId, query }: ListEndpointsQuery): Promise<Page<WebhookEndpoint>> {
    const { page } = readQuery(query, {});
    return this.endpoints.list(businessId, pageRequest('webhooks', businessFilters(businessId), page));
  }
}
