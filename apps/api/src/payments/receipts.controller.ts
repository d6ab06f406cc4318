import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { GetReceiptQuery } from '@lib/payments';
import { Public } from '../auth/auth.decorators';
import { dataOf } from '../platform/openapi';
import { RECEIPT_SCHEMA } from './schemas';

/** Public receipts (spec §2 Receipt): what the customer may see, nothing the business pays. */
@ApiTags('receipts')
@Controller('public/receipts')
export class ReceiptsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiOperation({ summary: 'A payment’s public receipt' })
  @ApiOkResponse({ description: 'The receipt.', schema: dataOf(RECEIPT_SCHEMA) })
  @Public()
  @Get(':id')
  async get(@Param('id') id: string) {
    return { data: await this.queries.execute(new GetReceiptQuery(id)) };
  }
}
