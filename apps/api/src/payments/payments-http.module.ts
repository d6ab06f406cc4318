import { Module } from '@nestjs/common';
import { PaymentsCoreModule } from '@lib/payments';
import { CheckoutsController } from './checkouts.controller';
import { PaymentsController } from './payments.controller';
import { ReceiptsController } from './receipts.controller';
import { TestClockController } from './test-clock.controller';

/** The HTTP routes of payments, checkouts, receipts and test clocks, over the capability's shared PaymentsCoreModule. */
@Module({
  imports: [PaymentsCoreModule],
  controllers: [PaymentsController, CheckoutsController, ReceiptsController, TestClockController],
})
export class PaymentsHttpModule {}
