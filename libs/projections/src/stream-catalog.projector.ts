import { Sql } from '@lib/database';
import { RecordedEvent } from '@lib/eventstore';
import { Projector } from './projector';

/**
 * The stream catalog: one row per stream with its category (the part of the name before the
 * first '-'), event count, last revision and type, and first/last recorded times. Operators
 * and auditors use it to find streams; it is also the projection the core's crash test and
 * CLI work on before the product's own projections exist.
 */
export const streamCatalogProjector: Projector = streamCatalog('stream_catalog');

/** The catalog under another name and table (tests run several side by side). */
export function streamCatalog(name: string, table = name): Projector {
  return {
  name,
  tables: [table],
  schema: `
    CREATE TABLE IF NOT EXISTS ${table} (
      stream_id         text        PRIMARY KEY,
      category          text        NOT NULL,
      events            bigint      NOT NULL,
      last_revision     bigint      NOT NULL,
      last_event_type   text        NOT NULL,
      first_recorded_at timestamptz NOT NULL,
      last_recorded_at  timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ${table}_category ON ${table} (category, last_recorded_at DESC);
  `,
  async handle(events: RecordedEvent[], tx: Sql): Promise<void> {
    const byStream = new Map<string, { count: number; first: RecordedEvent; last: RecordedEvent }>();
    for (const event of events) {
      const entry = byStream.get(event.stream);
      if (entry) {
        entry.count++;
        entry.last = event;
      } else byStream.set(event.stream, { count: 1, first: event, last: event });
    }
    const rows = [...byStream.entries()].map(([stream, { count, first, last }]) => ({
      stream_id: stream,
      category: stream.split('-')[0],
      events: count,
      last_revision: last.revision,
      last_event_type: last.type,
      first_recorded_at: first.recordedAt.toISOString(),
      last_recorded_at: last.recordedAt.toISOString(),
    }));
    await tx.query(
      `INSERT INTO ${table} AS c
       SELECT * FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)
       ON CONFLICT (stream_id) DO UPDATE SET
         events = c.events + excluded.events,
         last_revision = excluded.last_revision,
         last_event_type = excluded.last_event_type,
         last_recorded_at = excluded.last_recorded_at`,
      [JSON.stringify(rows)],
    );
  },
};
}
