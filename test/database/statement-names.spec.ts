import { statementName } from '@lib/database';
import { STORE_KINDS, storePerSuite } from '../support/fixtures';

describe.each(STORE_KINDS)('a statement name given with two texts (%s)', (kind) => {
  const opened = storePerSuite(kind, 'names');

  it('runs each text on the same connection, in either order, as often as asked', async () => {
    // the shape of the bug it prevents: a page query with a clause added when a cursor is given,
    // under one name (GET /api-keys answered 500 on PostgreSQL once a connection had run both)
    const name = `names_probe_${kind}`;
    const plain = `SELECT n FROM generate_series(1, 3) AS n ORDER BY n`;
    const after = `SELECT n FROM generate_series(1, 3) AS n WHERE n > $1 ORDER BY n`;
    await opened.db.transaction(async (tx) => {
      for (let round = 0; round < 3; round++) {
        expect((await tx.query<{ n: number }>(plain, [], name)).rows.map((r) => r.n)).toEqual([1, 2, 3]);
        expect((await tx.query<{ n: number }>(after, [1], name)).rows.map((r) => r.n)).toEqual([2, 3]);
      }
    });
  });
});

describe('statementName (the name a text is prepared under on PostgreSQL)', () => {
  it('keeps the name for its first text and gives each other text its own, stable name', () => {
    expect(statementName('probe_a', 'SELECT 1')).toBe('probe_a');
    expect(statementName('probe_a', 'SELECT 1')).toBe('probe_a');
    expect(statementName('probe_a', 'SELECT 2')).toBe('probe_a~2');
    expect(statementName('probe_a', 'SELECT 3')).toBe('probe_a~3');
    expect(statementName('probe_a', 'SELECT 2')).toBe('probe_a~2');
    expect(statementName('probe_b', 'SELECT 2')).toBe('probe_b');
  });

  it('runs a name’s texts past sixteen unprepared (undefined), so varying texts never fill memory', () => {
    for (let i = 0; i < 16; i++) expect(statementName('probe_c', `SELECT ${i}`)).toBe(i === 0 ? 'probe_c' : `probe_c~${i + 1}`);
    expect(statementName('probe_c', 'SELECT 16')).toBeUndefined();
    expect(statementName('probe_c', 'SELECT 3')).toBe('probe_c~4');
  });
});
