import { STORE_KINDS, TestStore, openTestStore } from '../support/fixtures';

describe.each(STORE_KINDS)('Database.transaction with a setup statement (%s)', (kind) => {
  let opened: TestStore;
  beforeAll(async () => {
    opened = await openTestStore(kind, 'tx');
    await opened.db.exec(`CREATE SCHEMA IF NOT EXISTS tx_setup; CREATE TABLE IF NOT EXISTS tx_setup.marks (n int)`);
  });
  afterAll(async () => opened.cleanup());

  it('runs the setup inside the transaction: its effect holds for the statements of fn, and ends with it', async () => {
    const inside = await opened.db.transaction(
      async (tx) => {
        await tx.query(`INSERT INTO marks (n) VALUES (1)`); // resolved through the setup's search_path
        return (await tx.query<{ schema: string }>(`SELECT current_schema() AS schema`)).rows[0].schema;
      },
      'read committed',
      `SET LOCAL search_path TO tx_setup`,
    );
    expect(inside).toBe('tx_setup');
    expect((await opened.db.query<{ n: number }>(`SELECT n FROM tx_setup.marks`)).rows).toEqual([{ n: 1 }]);
    expect((await opened.db.query<{ schema: string }>(`SELECT current_schema() AS schema`)).rows[0].schema).not.toBe('tx_setup');
  });

  it('rolls back what fn wrote when fn throws, setup or not', async () => {
    await expect(
      opened.db.transaction(
        async (tx) => {
          await tx.query(`INSERT INTO marks (n) VALUES (2)`);
          throw new Error('boom');
        },
        'read committed',
        `SET LOCAL search_path TO tx_setup`,
      ),
    ).rejects.toThrow('boom');
    expect((await opened.db.query<{ n: number }>(`SELECT n FROM tx_setup.marks WHERE n = 2`)).rows).toEqual([]);
  });
});
