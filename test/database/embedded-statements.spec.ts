import { PreparedStatements } from '../../libs/database/src/embedded-statements';
import { storePerSuite } from '../support/fixtures';

/**
 * The embedded database runs a statement it has seen before by name (prepared once): the answers
 * must be those of PGlite's own query, whatever the statement, and nothing about order, errors or
 * transactions may change.
 */
describe('embedded database: statements prepared once and run by name', () => {
  const opened = storePerSuite('embedded', 'prep');
  const statements = () => (opened.db as unknown as { statements: PreparedStatements }).statements;
  beforeAll(() => opened.db.exec(`CREATE TABLE prep_items (id text PRIMARY KEY, n bigint, doc jsonb, at timestamptz, tags text[])`));

  it('answers a statement run again (prepared) exactly as its first run (PGlite query): types, nulls and row counts', async () => {
    const insert = `INSERT INTO prep_items (id, n, doc, at, tags) VALUES ($1, $2, $3::jsonb, $4, $5) RETURNING id, n, doc, at, tags`;
    const at = new Date('2026-11-28T10:00:00.123Z');
    const first = await opened.db.query(insert, ['a', 9007199254740993n, { deep: { list: [1, 'x', null] } }, at, ['p', 'q']]);
    const before = statements().size;
    const second = await opened.db.query(insert, ['b', 9007199254740993n, { deep: { list: [1, 'x', null] } }, at, ['p', 'q']]);
    const third = await opened.db.query(insert, ['c', null, null, null, null]);
    expect(statements().size).toBe(before + 1); // the second run prepared it
    expect({ ...second.rows[0], id: 'a' }).toEqual(first.rows[0]);
    expect(second.rowCount).toBe(1);
    expect(third.rows[0]).toEqual({ id: 'c', n: null, doc: null, at: null, tags: null });

    const select = `SELECT id FROM prep_items WHERE id = ANY($1::text[]) ORDER BY id`;
    for (let i = 0; i < 3; i++) expect((await opened.db.query(select, [['a', 'c', 'zz']])).rows).toEqual([{ id: 'a' }, { id: 'c' }]);
    const update = `UPDATE prep_items SET n = coalesce(n, 0) + 1 WHERE id <> $1`;
    expect((await opened.db.query(update, ['zz'])).rowCount).toBe(3);
    expect((await opened.db.query(update, ['a'])).rowCount).toBe(2);
  });

  it('keeps an error as PostgreSQL gave it (code, constraint) on a prepared statement, and goes on after it', async () => {
    const insert = `INSERT INTO prep_items (id) VALUES ($1)`;
    await opened.db.query(insert, ['dup-1']);
    await opened.db.query(insert, ['dup-2']); // prepared now
    await expect(opened.db.query(insert, ['dup-1'])).rejects.toMatchObject({ code: '23505', constraint: 'prep_items_pkey' });
    expect((await opened.db.query(insert, ['dup-3'])).rowCount).toBe(1);
  });

  it('prepares anew a statement whose table changed under it (columns added): the answer has the new columns', async () => {
    await opened.db.exec(`CREATE TABLE prep_shape (id int)`);
    const select = `SELECT * FROM prep_shape`;
    await opened.db.query(select);
    await opened.db.query(select); // prepared with one column
    await opened.db.exec(`DROP TABLE prep_shape; CREATE TABLE prep_shape (id int, label text); INSERT INTO prep_shape VALUES (1, 'one')`);
    expect((await opened.db.query(select)).rows).toEqual([{ id: 1, label: 'one' }]);
  });

  it('keeps at most its capacity prepared, however many texts vary (a batch VALUES list)', async () => {
    for (let n = 1; n <= 300; n++) {
      const values = Array.from({ length: (n % 40) + 1 }, (_, i) => `($${i + 1}::int)`).join(', ');
      const params = Array.from({ length: (n % 40) + 1 }, (_, i) => i);
      await opened.db.query(`SELECT count(*)::int AS c FROM (VALUES ${values}) v(x)`, params);
      await opened.db.query(`SELECT ${n}::int AS k WHERE $1::int > 0`, [1]);
      await opened.db.query(`SELECT ${n}::int AS k WHERE $1::int > 0`, [1]); // seen twice: prepared
    }
    expect(statements().size).toBeLessThanOrEqual(256);
    expect((await opened.db.query(`SELECT 300::int AS k WHERE $1::int > 0`, [1])).rows).toEqual([{ k: 300 }]);
  });

  it('rolls back a statement of a failed transaction that was still waiting its turn when the transaction ended', async () => {
    const insert = `INSERT INTO prep_items (id) VALUES ($1)`;
    await expect(
      opened.db.transaction(async (tx) => {
        const failing = tx.query(insert, ['dup-1']); // a unique violation
        void tx.query(insert, ['late-1']).catch(() => undefined); // issued at once, waits behind it
        await failing;
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await opened.db.query(`SELECT id FROM prep_items WHERE id = 'late-1'`)).rows).toEqual([]);
  });
});
