import { openEventStore } from '@lib/eventstore';
import { tempDir } from '../support/temp-dir';
import { eventStoreContract } from './event-store.contract';

describe('event store contract: embedded (PGlite on disk)', () => {
  eventStoreContract(async () => {
    const dir = tempDir();
    const opened = await openEventStore({ dataDir: dir.path });
    return { store: opened.store, close: async () => (await opened.close(), dir.remove()) };
  });
});
