import { Database, Sql } from '@lib/database';
import { BusinessClock } from '@lib/payments';
import { TimerStore } from '@lib/timers';

/** A database that answers the test-clock offset read with `offsetMs` and records every statement's name. */
function clockDatabase(offsetMs: number): { db: Database; statements: string[] } {
  const statements: string[] = [];
  const query = async <R extends object>(text: string, _params?: unknown[], name?: string): Promise<{ rows: R[]; rowCount: number }> => {
    statements.push(name ?? text);
    const rows = (text.includes('business_clocks') ? [{ offset_ms: String(offsetMs) }] : []) as R[];
    return { rows, rowCount: rows.length };
  };
  const db: Database = {
    kind: 'postgres',
    query,
    exec: async () => undefined,
    transaction: async <T>(fn: (tx: Sql) => Promise<T>) => fn(db),
    close: async () => undefined,
  };
  return { db, statements };
}

describe('BusinessClock.nowOf', () => {
  const wall = new Date('2026-11-27T12:00:00.000Z');

  it("a simulated business's now is wall time plus its test clock's offset, read every time", async () => {
    const { db, statements } = clockDatabase(3_600_000);
    const clock = new BusinessClock(new TimerStore(db, { now: () => wall }));
    expect((await clock.nowOf({ id: 'biz_sim', simulated: true })).toISOString()).toBe('2026-11-27T13:00:00.000Z');
    expect((await clock.nowOf({ id: 'biz_sim', simulated: true })).toISOString()).toBe('2026-11-27T13:00:00.000Z');
    expect(statements).toEqual(['timers_clock_offset', 'timers_clock_offset']);
  });

  it('a live business has no test clock: wall time, without a statement', async () => {
    const { db, statements } = clockDatabase(3_600_000);
    const clock = new BusinessClock(new TimerStore(db, { now: () => wall }));
    expect((await clock.nowOf({ id: 'biz_live', simulated: false })).toISOString()).toBe(wall.toISOString());
    expect(statements).toEqual([]);
  });

  it('a business read with its offset (the same statement as the business) takes its now from that read, without another statement', async () => {
    const { db, statements } = clockDatabase(3_600_000);
    const clock = new BusinessClock(new TimerStore(db, { now: () => wall }));
    expect((await clock.nowOf({ id: 'biz_sim', simulated: true, clockOffsetMs: 90_000 })).toISOString()).toBe('2026-11-27T12:01:30.000Z');
    expect((await clock.nowOf({ id: 'biz_live', simulated: false, clockOffsetMs: 0 })).toISOString()).toBe(wall.toISOString());
    expect(statements).toEqual([]);
  });
});
