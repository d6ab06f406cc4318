import { Module } from '@nestjs/common';
import { CustomersModule } from '@lib/customers';
import { CustomersController } from './customers.controller';

/** The customer routes over the customers capability (which also gives payments its CUSTOMER_GATE). */
@Module({
  imports: [CustomersModule],
  controllers: [CustomersController],
})
export class CustomersHttpModule {}
