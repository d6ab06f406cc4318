import { openTestStore } from '../support/fixtures';
import { eventStoreContract } from './event-store.contract';

describe('event store contract: postgres', () => {
  eventStoreContract(async () => {
    const opened = await openTestStore('postgres', 'es');
    return { store: opened.store, close: opened.cleanup };
  });
});
