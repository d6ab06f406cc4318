import { Module } from '@nestjs/common';
import { SearchModule } from '@lib/search';
import { SearchController } from './search.controller';

/** GET /search over the search capability. */
@Module({
  imports: [SearchModule],
  controllers: [SearchController],
})
export class SearchHttpModule {}
