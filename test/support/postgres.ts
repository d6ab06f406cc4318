import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { connectPostgres, migrate, PostgresDatabase } from '@lib/database';
import { closeInTurn } from './close';

/** The PostgreSQL server the tests use; CI and this machine run one at 127.0.0.1:5432. */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh, empty database on the test server, so suites never see each other's rows. */
export async function createTestDatabase(prefix = 't'): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** Runs `fn` on a fresh database (createTestDatabase), and drops it however `fn` ends. */
export async function withTestDatabase<T>(prefix: string, fn: (database: TestDatabase) => Promise<T>): Promise<T> {
  const database = await createTestDatabase(prefix);
  try {
    return await fn(database);
  } finally {
    await database.drop();
  }
}

/**
 * A fresh database, migrated, with two pools on it: `db`, and `second` (another replica's, for
 * tests of what two processes see). `close` closes both and drops the database.
 */
export async function migratedDatabaseWithReplica(prefix: string, poolSize: number): Promise<{ db: PostgresDatabase; second: PostgresDatabase; close(): Promise<void> }> {
  const database = await createTestDatabase(prefix);
  const db = connectPostgres(database.url, poolSize);
  await migrate(db);
  const second = connectPostgres(database.url, poolSize);
  return {
    db,
    second,
    close: () => closeInTurn(second, db, () => database.drop()),
  };
}

async function admin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
