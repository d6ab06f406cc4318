import { Module } from '@nestjs/common';
import { PaymentsCoreModule } from '@lib/payments';
import { SearchHandler } from './queries/search/search.handler';
import { SearchReadModel } from './search.read-model';

/**
 * The search capability in a Nest app (decision 0031): GET /search's query handler over the
 * `search` projection. Needs PaymentsReadModel, CustomersReadModel and LinksReadModel (their
 * modules are global in the API).
 */
@Module({
  imports: [PaymentsCoreModule],
  providers: [SearchReadModel, SearchHandler],
  exports: [SearchReadModel],
})
export class SearchModule {}
