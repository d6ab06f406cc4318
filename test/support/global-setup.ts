import { Client } from 'pg';
import { TEST_POSTGRES_URL } from './postgres';

/** The postgres tests always run: say clearly, once, when the server is not there. */
export default async function globalSetup(): Promise<void> {
  const client = new Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${TEST_POSTGRES_URL} (${(error as Error).message}). ` +
        `The test suite runs the postgres adapter's tests against a real server: start it ` +
        `(pg_ctlcluster --skip-systemctl-redirect 15 main start) or set TEST_DATABASE_URL.`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
