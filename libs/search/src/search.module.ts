import { Module } from '@nestjs/common';
import { PaymentsCoreModule } from '@lib/payments';
import { SearchHandler } from './queries/search/search.handler';
import { SearchReadModel } from './search.read-model';

/**
 * The search capability in a Nest app (decision 0031): GET /search's query handler over the
 * `search` projection. Needs PaymentsReadModel and CustomersReadModel (their modules are global in
 * the API); links plug in by providing LINK_SEARCH_READER.
 */
@Module({
  imports: [PaymentsCoreModule],
  providers: [SearchReadModel, SearchHandler],
  exports: [SearchReadModel],
})
export class SearchModule {}
