import { Controller, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { GetReceiptQuery } from '@lib/payments';
import { GetRoute } from '../platform/route-presets';
import { RECEIPT_SCHEMA } from './schemas';

/** Public receipts (spec §2 Receipt): what the customer may see, nothing the business pays. */
@ApiTags('receipts')
@Controller('public/receipts')
export class ReceiptsController {
  constructor(private readonly queries: QueryBus) {}

  @GetRoute(':id', { summary: 'A payment’s public receipt', data: [RECEIPT_SCHEMA, 'The receipt.'], access: 'public' })
  async get(@Param('id') id: string) {
    return { data: await this.queries.execute(new GetReceiptQuery(id)) };
  }
}
