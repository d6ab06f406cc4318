import { Global, Module } from '@nestjs/common';
import { LINK_GATE } from '@lib/payments';
import { ArchiveLinkHandler } from './commands/archive-link/archive-link.handler';
import { CreateLinkHandler } from './commands/create-link/create-link.handler';
import { DeleteLinkHandler } from './commands/delete-link/delete-link.handler';
import { DisableLinkHandler } from './commands/disable-link/disable-link.handler';
import { LinkWrites } from './commands/link-writes';
import { RestoreLinkHandler } from './commands/restore-link/restore-link.handler';
import { UpdateLinkHandler } from './commands/update-link/update-link.handler';
import { LinkDirectory } from './link-directory';
import { LinksReadModel } from './links.read-model';
import { GetLinkHandler } from './queries/get-link/get-link.handler';
import { ListLinksHandler } from './queries/list-links/list-links.handler';

export const LINK_HANDLERS = [CreateLinkHandler, UpdateLinkHandler, ArchiveLinkHandler, RestoreLinkHandler, DeleteLinkHandler, DisableLinkHandler, GetLinkHandler, ListLinksHandler];

/**
 * The links capability in a Nest app (decision 0030): its use cases for the buses, and the
 * payments capability's LINK_GATE. Global, so PaymentsCoreModule's handlers find the gate
 * without importing this capability; the API and the worker import it.
 */
@Global()
@Module({
  providers: [LinksReadModel, LinkDirectory, LinkWrites, ...LINK_HANDLERS, { provide: LINK_GATE, useExisting: LinkDirectory }],
  exports: [LINK_GATE, LinksReadModel, LinkDirectory],
})
export class LinksModule {}
