import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Database } from './database';

/** eventstore/postgres in the repository, found from here in source and in dist alike. */
export function migrationsDirectory(): string {
  let dir = __dirname;
  for (;;) {
    const candidate = join(dir, 'eventstore', 'postgres');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the eventstore/postgres migrations folder');
    dir = parent;
  }
}

/**
 * Applies eventstore/postgres/NNN_*.sql in order, each once, each in its own transaction.
 * An advisory lock makes concurrent start-ups (several replicas) safe.
 */
export async function migrate(db: Database, directory = migrationsDirectory()): Promise<string[]> {
  const files = readdirSync(directory)
    .filter((name) => /^\d+_.+\.sql$/.test(name))
    .sort();
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(4242001)`);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await tx.query<{ name: string }>(`SELECT name FROM schema_migrations`)).rows.map((r) => r.name));
    for (const file of files) {
      if (done.has(file)) continue;
      await tx.exec(readFileSync(join(directory, file), 'utf8'));
      await tx.query(`INSERT INTO schema_migrations (name) VALUES ($1)`, [file]);
      applied.push(file);
    }
  });
  return applied;
}
