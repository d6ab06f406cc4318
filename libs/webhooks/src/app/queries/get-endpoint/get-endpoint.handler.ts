import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { EndpointQueries } from '../../../read/endpoint-queries';
import type { WebhookEndpoint } from '../../../read/views';
import { GetEndpointQuery } from './get-endpoint.query';

@QueryHandler(GetEndpointQuery)
export class GetEndpointHandler implements IQueryHandler<GetEndpointQuery> {
  private readonly endpoints: EndpointQueries;

  constructor(@Inject(DATABASE) db: Sql) {
    this.endpoints = new EndpointQueries(db);
  }

  execute({ businessId, webhookId }: GetEndpointQuery): Promise<WebhookEndpoint> {
    return this.endpoints.get(businessId, webhookId);
  }
}
