import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { ApiPage } from '../platform/route-presets';
import { DELIVERY_SCHEMA } from './schemas';

/**
 * The delivery log as the routes that list it take it (GET /webhook_deliveries and
 * GET /webhooks/{id}/deliveries): a page of deliveries, newest first, and its filters (listed in
 * the document in this order).
 */
export const ApiDeliveryLog = () =>
  applyDecorators(
    ApiPage(DELIVERY_SCHEMA, 'A page of deliveries.'),
    ApiQuery({ name: 'subject_id', required: false }),
    ApiQuery({ name: 'event_id', required: false }),
    ApiQuery({ name: 'event_type', required: false }),
    ApiQuery({ name: 'status', required: false, enum: ['succeeded', 'retrying', 'failed'] }),
  );
