import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

/** The admin URL of the PostgreSQL server benchmarks create their throwaway databases on. */
export const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchStore {
  /** A fresh temporary folder (the embedded store lives in its `data` subfolder). */
  dir: string;
  /** The service's environment for this store: DATA_DIR, and DATABASE_URL on `postgres`. */
  env: NodeJS.ProcessEnv;
  /** Removes the folder and drops the database. */
  cleanup(): Promise<void>;
}

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A store for one benchmark run: `embedded` (a temp folder) or `postgres` (a throwaway database). */
/** The key-encryption key of wallet secrets in benchmark deployments on PostgreSQL (never a real one). */
export const BENCH_WALLET_KEK = '0'.repeat(48) + 'be0c4be0c4be0c4b';

export async function openBenchStore(store: string, name: string, env: NodeJS.ProcessEnv = {}): Promise<BenchStore> {
  const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const out: NodeJS.ProcessEnv = { PORT: '0', DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent', ...env };
  let dbName: string | null = null;
  if (store === 'postgres') {
    dbName = `bench_${name}_${Date.now().toString(36)}`;
    await admin(`CREATE DATABASE ${dbName}`);
    const url = new URL(ADMIN_URL);
    url.pathname = `/${dbName}`;
    out.DATABASE_URL = url.toString();
    // a shared store needs the wallets' key-encryption key (a fixed one for benchmarks)
    out.WALLET_KEK ??= BENCH_WALLET_KEK;
  }
  return {
    dir,
    env: out,
    cleanup: async () => {
      rmSync(dir, { recursive: true, force: true });
      if (dbName) await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    },
  };
}
