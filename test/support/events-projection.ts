import type { Database } from '@lib/database';
import type { Projector } from '@lib/projections';
import { type ApiEventSource, eventsProjector } from '../../libs/webhooks/src';
import { type TestStore, storePerSuite } from './fixtures';

/**
 * A PostgreSQL store for the suite (`prefix`) holding `projector`'s tables (the read model an
 * endpoint answers from) and those of the events projection over `sources` (`events`, the API
 * events it writes): for tests that hold each event's data to what the endpoint showed then.
 */
export function eventsProjectionPerSuite(prefix: string, projector: Projector, sources: readonly ApiEventSource[]): { store: TestStore; events: Projector } {
  const store = storePerSuite('postgres', prefix);
  const events = eventsProjector(sources);
  beforeAll(async () => {
    await store.db.exec(projector.schema);
    await store.db.exec(events.schema);
  });
  return { store, events };
}

/** The API events the events projection wrote, in order, each with the id of the domain event it came from. */
export async function writtenEvents<D>(db: Database): Promise<{ source: string; event: { type: string; subject: { id: string }; data: D } }[]> {
  const { rows } = await db.query<{ source_event_id: string; payload: string }>('SELECT source_event_id, payload FROM events ORDER BY seq');
  return rows.map((r) => ({ source: r.source_event_id, event: JSON.parse(r.payload) as { type: string; subject: { id: string }; data: D } }));
}
