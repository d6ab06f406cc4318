import { Database, connectPostgres, migrate, openEmbedded } from '@lib/database';
import { EventStore } from './event-store.port';
import { SqlEventStore } from './sql/sql-event-store';

export interface StoreConfig {
  /** PostgreSQL connection string; selects the postgres adapter. */
  databaseUrl?: string;
  /** EventStoreDB connection string (esdb://…); selects the eventstoredb adapter. */
  eventstoreUrl?: string;
  /** Folder of the embedded database (default ./data). */
  dataDir?: string;
  pollIntervalMs?: number;
}

export interface OpenedStore {
  store: EventStore;
  /** Where read models, checkpoints and timers live: the same database as the log, except
   *  with EventStoreDB, where it is PostgreSQL (DATABASE_URL) or the embedded database. */
  db: Database;
  close(): Promise<void>;
}

export function storeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): StoreConfig {
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    eventstoreUrl: env.EVENTSTORE_URL || undefined,
    dataDir: env.DATA_DIR || './data',
  };
}

/** Which adapter a configuration selects: eventstoredb > postgres > embedded. */
export function adapterFor(config: StoreConfig): EventStore['kind'] {
  if (config.eventstoreUrl) return 'eventstoredb';
  if (config.databaseUrl) return 'postgres';
  return 'embedded';
}

/** Opens the configured event store and the SQL database beside it, migrated. */
export async function openEventStore(config: StoreConfig): Promise<OpenedStore> {
  const db = config.databaseUrl ? connectPostgres(config.databaseUrl) : await openEmbedded(config.dataDir ?? './data');
  try {
    await migrate(db);
    if (config.eventstoreUrl) {
      // loaded only when chosen: the gRPC client and its protocol buffers cost ~12 MB of memory that the other adapters never use
      const { EventStoreDbEventStore } = await import('./eventstoredb/eventstoredb-event-store.js');
      const store = EventStoreDbEventStore.connect(config.eventstoreUrl);
      return { store, db, close: async () => (await store.close(), await db.close()) };
    }
    const store = new SqlEventStore(db, { pollIntervalMs: config.pollIntervalMs });
    return { store, db, close: () => store.close() };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
