import { Module } from '@nestjs/common';
import { LinksModule } from '@lib/links';
import { LinksController } from './links.controller';

/** The link routes over the links capability (which also gives payments its LINK_GATE). */
@Module({
  imports: [LinksModule],
  controllers: [LinksController],
})
export class LinksHttpModule {}
