import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { dataOf } from '../platform/openapi';
import { RECEIPT_SCHEMA } from './schemas';
import { PaymentDomainError, PaymentsReadModel } from '@lib/payments';
import { Public } from '../auth/auth.decorators';

/** Public receipts (spec §2 Receipt): what the customer may see, nothing the business pays. */
@ApiTags('receipts')
@Controller('public/receipts')
export class ReceiptsController {
  constructor(private readonly read: PaymentsReadModel) {}

  @ApiOperation({ summary: 'A payment’s public receipt' })
  @ApiOkResponse({ description: 'The receipt.', schema: dataOf(RECEIPT_SCHEMA) })
  @Public()
  @Get(':id')
  async get(@Param('id') id: string) {
    const receipt = /^pmt_[A-Za-z0-9]{1,64}$/.test(id) ? await this.read.getReceipt(id) : null;
    if (!receipt) throw new PaymentDomainError('not_found', `No receipt ${id}.`);
    return { data: receipt };
  }
}
