export * from './queries/search/search.handler';
export * from './queries/search/search.query';
export * from './search-request';
export * from './search.module';
export * from './search.projector';
export * from './search.read-model';
export * from './sources';
export * from './terms';

import { searchProjector } from './search.projector';
import { SEARCH_SOURCES } from './sources';

/** The `search` projection with every source (decision 0031). */
export const SEARCH_PROJECTOR = searchProjector(SEARCH_SOURCES);
