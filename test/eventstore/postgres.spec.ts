import { openEventStore } from '@lib/eventstore';
import { createTestDatabase } from '../support/postgres';
import { eventStoreContract } from './event-store.contract';

describe('event store contract: postgres', () => {
  eventStoreContract(async () => {
    const database = await createTestDatabase('es');
    const opened = await openEventStore({ databaseUrl: database.url });
    return { store: opened.store, close: async () => (await opened.close(), await database.drop()) };
  });
});
