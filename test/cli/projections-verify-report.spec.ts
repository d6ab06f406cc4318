import { randomUUID } from 'node:crypto';
import { Database, Sql } from '@lib/database';
import { EventStore, RecordedEvent } from '@lib/eventstore';
import { Projector, ProjectionRunner } from '@lib/projections';
import { verify } from '../../apps/cli/src/commands/projections';
import { storePerSuite } from '../support/fixtures';

/**
 * What `projections verify` prints when rows differ (operators audit F3, F5): credentials'
 * hashes redacted as `events` prints them, and a changed row counted once.
 */
describe('projections verify report', () => {
  const opened = storePerSuite('embedded', 'vrep');
  let store: EventStore;
  let db: Database;
  beforeAll(() => ({ store, db } = opened));

  const SECRET = '$argon2id$v=19$m=19456,t=2,p=1$c2VjcmV0c2FsdA$aGFzaGhhc2g';
  const projector: Projector = {
    name: 'verify_report_people',
    tables: ['verify_report_people'],
    schema: `CREATE TABLE IF NOT EXISTS verify_report_people (id text PRIMARY KEY, email text NOT NULL, password_hash text, secret_hash text, tx_hash text)`,
    async handle(events: RecordedEvent[], tx: Sql) {
      for (const e of events) {
        if (e.type !== 'PersonAdded') continue;
        const d = e.data as { id: string; email: string };
        await tx.query(`INSERT INTO verify_report_people VALUES ($1, $2, $3, $4, $5)`, [d.id, d.email, SECRET, 'd3ced4a8e1502c8e6b02', '0xabc123']);
      }
    },
  };

  it('prints changed rows once, as live has / replay has, with every credential hash as [redacted]', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    let last = null;
    for (const id of ids) last = (await store.append(`person-${id}`, [{ id: randomUUID(), type: 'PersonAdded', data: { id, email: `${id}@example.com` } }], 'no_stream')).position;
    const runner = new ProjectionRunner(store, db, [projector]);
    await runner.start();
    expect(await runner.waitFor(last!)).toBe(true);
    await runner.stop();

    await db.query(`UPDATE verify_report_people SET email = 'changed@example.com' WHERE id = $1`, [ids[0]]);
    const out: string[] = [];
    expect(await verify(store, db, [projector.name], false, (l) => out.push(l), [projector])).toBe(1);
    const text = out.join('\n');
    expect(text).not.toContain('argon2id');
    expect(text).not.toContain('d3ced4a8e1502c8e6b02');
    // (to_jsonb orders a row's keys: by length, then by name)
    expect(out).toEqual([
      `verify_report_people ~ changed, live has:   ${JSON.stringify({ id: ids[0], email: 'changed@example.com', tx_hash: '0xabc123', secret_hash: '[redacted]', password_hash: '[redacted]' })}`,
      `verify_report_people ~ changed, replay has: ${JSON.stringify({ id: ids[0], email: `${ids[0]}@example.com`, tx_hash: '0xabc123', secret_hash: '[redacted]', password_hash: '[redacted]' })}`,
      'verify_report_people: DIFFERENT: 1 differing row in 1 table(s) (1 changed); fix with: projections rebuild verify_report_people',
    ]);

    // a row deleted and one added by hand: one missing, one only live
    await db.query(`DELETE FROM verify_report_people WHERE id = $1`, [ids[1]]);
    await db.query(`INSERT INTO verify_report_people VALUES ('ghost', 'ghost@example.com', $1, NULL, NULL)`, [SECRET]);
    out.length = 0;
    expect(await verify(store, db, [projector.name], false, (l) => out.push(l), [projector])).toBe(1);
    expect(out.join('\n')).not.toContain('argon2id');
    expect(out.filter((l) => l.includes(' - live only:'))).toEqual([`verify_report_people - live only:    ${JSON.stringify({ id: 'ghost', email: 'ghost@example.com', tx_hash: null, secret_hash: null, password_hash: '[redacted]' })}`]);
    expect(out.filter((l) => l.includes(' + replay only:'))).toHaveLength(1);
    expect(out[out.length - 1]).toBe('verify_report_people: DIFFERENT: 3 differing rows in 1 table(s) (1 changed, 1 missing from the live tables, 1 only in the live tables); fix with: projections rebuild verify_report_people');
  });
});
