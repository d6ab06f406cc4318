import { openTestStore } from '../support/fixtures';
import { eventStoreContract } from './event-store.contract';

describe('event store contract: embedded (PGlite on disk)', () => {
  eventStoreContract(async () => {
    const opened = await openTestStore('embedded');
    return { store: opened.store, close: opened.cleanup };
  });
});
