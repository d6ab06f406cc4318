import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { WebhookDelivery, deliveryView } from '../../../delivery/delivery-store';
import { DeliveryQueries } from '../../../read/delivery-queries';
import { GetDeliveryQuery } from './get-delivery.query';

@QueryHandler(GetDeliveryQuery)
export class GetDeliveryHandler implements IQueryHandler<GetDeliveryQuery> {
  private readonly deliveries: DeliveryQueries;

  constructor(@Inject(DATABASE) db: Sql) {
    this.deliveries = new DeliveryQueries(db);
  }

  async execute({ businessId, deliveryId, segments }: GetDeliveryQuery): Promise<WebhookDelivery> {
    return deliveryView(await this.deliveries.row(businessId, deliveryId, segments));
  }
}
