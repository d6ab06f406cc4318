import { type Database, migrate, openEmbedded } from '@lib/database';
import { tempDir } from './temp-dir';

/** A fresh embedded database (PGlite) in a temporary folder, migrated; `close` closes it and removes the folder. */
export async function migratedEmbedded(): Promise<{ db: Database; close(): Promise<void> }> {
  const dir = tempDir();
  const db = await openEmbedded(dir.path);
  await migrate(db);
  return {
    db,
    close: async () => {
      await db.close();
      dir.remove();
    },
  };
}
