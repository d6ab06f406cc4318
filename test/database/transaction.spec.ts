import { Client } from 'pg';
import { STORE_KINDS, storePerSuite } from '../support/fixtures';

describe.each(STORE_KINDS)('Database.transaction with a setup statement (%s)', (kind) => {
  const opened = storePerSuite(kind, 'tx');
  beforeAll(() => opened.db.exec(`CREATE SCHEMA IF NOT EXISTS tx_setup; CREATE TABLE IF NOT EXISTS tx_setup.marks (n int)`));

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

  it('takes statements issued at once (projectors side by side) one after another, in order, never a second query on a busy connection', async () => {
    // pg 8 queues a query sent to a busy client but deprecates it, and pg 9 refuses it: count what is in flight
    let inFlight = 0;
    let most = 0;
    const original = Client.prototype.query;
    const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      inFlight++;
      most = Math.max(most, inFlight);
      const answer = (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      void Promise.resolve(answer).then(
        () => inFlight--,
        () => inFlight--,
      );
      return answer;
    } as never);
    try {
      const answers = await opened.db.transaction(
        async (tx) =>
          Promise.all([
            tx.query(`INSERT INTO marks (n) VALUES (3)`),
            tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM marks WHERE n = 3`),
            tx.query(`INSERT INTO marks (n) VALUES (3)`),
            tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM marks WHERE n = 3`),
          ]),
        'read committed',
        `SET LOCAL search_path TO tx_setup`,
      );
      expect([answers[1].rows[0].n, answers[3].rows[0].n]).toEqual([1, 2]); // each saw exactly the writes issued before it
      if (kind === 'postgres') {
        expect(spy).toHaveBeenCalled();
        expect(most).toBe(1);
      }
    } finally {
      spy.mockRestore();
    }
  });
});
