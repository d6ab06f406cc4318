/**
 * End to end: the operator CLI (apps/cli/src/main.ts) run as a child process, the way an
 * operator runs it, against a fresh PostgreSQL database (and, for the lock, an embedded
 * data directory). Assertions are on the real exit codes, stdout and stderr.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { OpenedStore, comparePositions, openEventStore, parsePosition } from '@lib/eventstore';
import { ALL_PROJECTORS } from '@lib/wiring';
import { TestDatabase, createTestDatabase } from '../support/postgres';
import { Run, cli, spawnCli } from '../support/cli';
import { tempDir } from '../support/temp-dir';

const SEED_TYPES = ['PaymentCreated', 'CheckoutOpened', 'TransferDetected', 'ConfirmationObserved', 'PaymentSucceeded', 'PaymentSucceeded', 'PaymentSucceeded'];

/** A long-running CLI command (events tail): its stdout lines as they arrive. */
function startCli(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawnCli(args, env);
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolvePromise) =>
    child.on('close', (code, signal) => resolvePromise({ code, signal })),
  );
  let running = true;
  void exited.then(() => (running = false));
  return {
    child,
    lines,
    exited,
    stderr: () => stderr,
    /** Resolves once `predicate(lines)` holds; fails on timeout or if the child exits first. */
    async waitFor(what: string, predicate: (lines: string[]) => boolean, timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(lines)) {
        if (!running || Date.now() > deadline) {
          throw new Error(`cli ${args.join(' ')}: ${running ? 'timed out' : 'exited'} waiting for ${what}; ${lines.length} lines\nstderr: ${stderr}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    /** Stops it like Ctrl-C; resolves with the exit and how long it took. */
    async interrupt(timeoutMs = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
      const started = Date.now();
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const result = await exited;
      clearTimeout(timer);
      return { ...result, ms: Date.now() - started };
    },
    kill: () => running && child.kill('SIGKILL'),
  };
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
/** Cells of a table row printed by the CLI (columns are separated by two or more spaces). */
const cells = (row: string) => row.trim().split(/\s{2,}/);
const revisions = (run: Run) => lines(run.stdout).map((l) => JSON.parse(l).revision as number);

describe('operator CLI on postgres', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let pg: Client;
  let streams: string[] = [];
  const tails: ReturnType<typeof startCli>[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('cli');
    env = { DATABASE_URL: database.url };
    pg = new Client({ connectionString: database.url });
    await pg.connect();
  });

  afterAll(async () => {
    for (const tail of tails) tail.kill();
    await pg?.end().catch(() => undefined);
    await database?.drop();
  });

  const status = async () => {
    const [table, json] = await Promise.all([cli(['projections', 'status'], env), cli(['projections', 'status', '--json'], env)]);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const [header, rule, ...rows] = lines(table.stdout);
    expect(cells(header)).toEqual(['projection', 'position', 'events', 'lag', 'updated_at', 'rebuilt_at']);
    expect(rule).toMatch(/^[- ]+$/);
    const byName = new Map(rows.map((r) => [cells(r)[0], cells(r)]));
    const records = lines(json.stdout).map((l) => JSON.parse(l));
    expect(records.map((r) => r.name)).toEqual(ALL_PROJECTORS.map((p) => p.name));
    expect([...byName.keys()]).toEqual(ALL_PROJECTORS.map((p) => p.name));
    for (const r of records) expect(r).toEqual(expect.objectContaining({ name: expect.any(String), position: expect.any(String), events: expect.any(Number), lag: expect.any(Number) }));
    // no live state: the CLI runs no projection, so it would say "stopped" of one a server runs (operators audit)
    for (const r of records) expect(Object.keys(r)).not.toEqual(expect.arrayContaining(['state']));
    return { table: byName.get('stream_catalog')!, json: records.find((r) => r.name === 'stream_catalog') };
  };

  it('dev seed: seeds 20 streams of 7 events', async () => {
    const run = await cli(['dev', 'seed', '--streams', '20', '--events', '7'], env);
    expect(run.code).toBe(0);
    const match = /^seeded 20 streams, 140 events \(streams (\S+)0 …\)$/.exec(run.stdout.trim());
    expect(match).not.toBeNull();
    streams = Array.from({ length: 20 }, (_, s) => `${match![1]}${s}`);
    expect(run.stderr).toMatch(/seed \[#{30}\] 100\.0% 140\/140 events/);
    const { rows } = await pg.query<{ stream_id: string; revision: string }>(`SELECT stream_id, max(stream_revision)::text AS revision FROM es_events GROUP BY stream_id ORDER BY stream_id`);
    expect(rows.map((r) => r.stream_id).sort()).toEqual([...streams].sort());
    expect(rows.every((r) => r.revision === '6')).toBe(true);
  });

  it('projections status: stream_catalog lags by the whole log before any rebuild (table and --json)', async () => {
    const { table, json } = await status();
    expect(table.slice(0, 4)).toEqual(['stream_catalog', 'start', '0', '140']);
    expect(table[4]).toBe('-'); // never ran: looking at the status writes no checkpoint
    expect(table[5]).toBe('-');
    // members named as GET /health names a projection's, and as the table's columns
    expect(json).toEqual({ name: 'stream_catalog', position: 'start', events: 0, lag: 140, updated_at: null, rebuilt_at: null });
  });

  let head = '';
  it('projections rebuild --all: progress on stderr, a summary on stdout, then lag 0', async () => {
    const run = await cli(['projections', 'rebuild', '--all'], env);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/rebuild stream_catalog \[#{30}\] 100\.0% 140\/140 events {2}\d+ events\/s {2}ETA 0s/);
    const match = /^rebuilt stream_catalog: 140 events in \d+\.\d s, position (\d+\/\d+)$/m.exec(run.stdout);
    expect(match).not.toBeNull();
    head = match![1];

    const { table, json } = await status();
    expect(table.slice(0, 4)).toEqual(['stream_catalog', head, '140', '0']);
    expect(table[5]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(json).toMatchObject({ name: 'stream_catalog', position: head, events: 140, lag: 0, updated_at: expect.stringMatching(/Z$/), rebuilt_at: table[5] });

    const { rows } = await pg.query<{ stream_id: string; events: string; last_revision: string; last_event_type: string; category: string }>(
      `SELECT stream_id, events::text, last_revision::text, last_event_type, category FROM stream_catalog ORDER BY stream_id`,
    );
    expect(rows.map((r) => r.stream_id).sort()).toEqual([...streams].sort());
    for (const row of rows) expect(row).toMatchObject({ events: '7', last_revision: '6', last_event_type: 'PaymentSucceeded', category: 'payment' });
  });

  it('events stream: JSON lines oldest first, --pretty, --from/--limit, --backwards; unknown stream exits 1', async () => {
    const stream = streams[3];
    const [all, pretty, window, backwards, missing, zeroLimit, wordFrom] = await Promise.all([
      cli(['events', 'stream', stream], env),
      cli(['events', 'stream', stream, '--pretty'], env),
      cli(['events', 'stream', stream, '--from', '2', '--limit', '3'], env),
      cli(['events', 'stream', stream, '--backwards', '--limit', '2'], env),
      cli(['events', 'stream', 'no-such-stream'], env),
      cli(['events', 'stream', stream, '--limit', '0'], env),
      cli(['events', 'stream', stream, '--from', 'abc'], env),
    ]);

    expect(all).toMatchObject({ code: 0, stderr: '' });
    const events = lines(all.stdout).map((l) => JSON.parse(l));
    expect(events.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    events.forEach((e, i) => {
      expect(Object.keys(e)).toEqual(expect.arrayContaining(['id', 'stream', 'revision', 'position', 'type', 'recorded_at', 'data', 'metadata']));
      expect(e.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(e.stream).toBe(stream);
      expect(e.type).toBe(SEED_TYPES[i]);
      expect(e.position).toMatch(/^\d+\/\d+$/);
      expect(new Date(e.recorded_at).toISOString()).toBe(e.recorded_at);
      expect(e.data).toEqual({ payment_id: `pmt_seed${stream.slice('payment-seed'.length)}`, amount: String(1003), currency: 'USD', step: i });
      expect(e.metadata).toMatchObject({ correlationId: expect.stringMatching(/^seed-/), actor: { kind: 'system', id: null, name: 'seed' } });
      if (i > 0) expect(comparePositions(parsePosition(events[i - 1].position)!, parsePosition(e.position)!)).toBeLessThan(0);
    });
    expect(new Set(events.map((e) => e.id)).size).toBe(7);

    expect(pretty).toMatchObject({ code: 0, stderr: '' });
    const [header, rule, ...rows] = lines(pretty.stdout);
    // occurred_at: the business's clock (metadata.occurredAt, as the API shows it), "-" when none was recorded, beside the log's wall time (ops audit F6)
    expect(cells(header)).toEqual(['rev', 'position', 'occurred_at', 'recorded_at', 'type', 'data', 'metadata']);
    expect(rule).toMatch(/^-+( +-+){6}$/);
    expect(rows.map((r) => cells(r).slice(0, 5))).toEqual(events.map((e) => [String(e.revision), e.position, e.metadata.occurredAt ?? '-', e.recorded_at, e.type]));
    expect(cells(rows[0])[6]).toMatch(/^actor=system:- corr=seed-/);

    expect(window.code).toBe(0);
    expect(revisions(window)).toEqual([2, 3, 4]);
    expect(backwards.code).toBe(0);
    expect(revisions(backwards)).toEqual([6, 5]);
    expect(lines(backwards.stdout).map((l) => JSON.parse(l).id)).toEqual([events[6].id, events[5].id]);

    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe(''); // scripts reading JSON lines get only JSON lines
    expect(missing.stderr).toContain('stream no-such-stream not found');

    for (const bad of [zeroLimit, wordFrom]) {
      expect(bad.code).not.toBe(0);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toMatch(/expected a whole number of at least [01]/);
    }
  }, 120_000); // seven CLI processes start at once: on 2 loaded cores that alone can take most of a minute

  it('projections verify: OK, then DIFFERENT with the tampered rows after editing the live table, OK again after a rebuild', async () => {
    const ok = await cli(['projections', 'verify', 'stream_catalog'], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim()).toBe(`stream_catalog: OK, live tables equal a fresh replay of 140 events (up to ${head})`);
    expect(ok.stderr).toMatch(/verify stream_catalog \[#{30}\] 100\.0% 140\/140 events .*events\/s .*ETA/);

    const [edited, deleted] = [streams[5], streams[9]];
    expect((await pg.query(`UPDATE stream_catalog SET events = 999 WHERE stream_id = $1`, [edited])).rowCount).toBe(1);
    expect((await pg.query(`DELETE FROM stream_catalog WHERE stream_id = $1`, [deleted])).rowCount).toBe(1);

    const bad = await cli(['projections', 'verify', 'stream_catalog'], env);
    expect(bad.code).toBe(1);
    const out = lines(bad.stdout);
    const rowsOf = (prefix: string) => out.filter((l) => l.startsWith(prefix)).map((l) => JSON.parse(l.slice(prefix.length)));
    // the edited row is one changed row (both sides shown), the deleted one is missing (operators audit F5)
    expect(rowsOf('stream_catalog ~ changed, live has:')).toEqual([expect.objectContaining({ stream_id: edited, events: 999 })]);
    expect(rowsOf('stream_catalog ~ changed, replay has:')).toEqual([expect.objectContaining({ stream_id: edited, events: 7, last_revision: 6, category: 'payment' })]);
    expect(rowsOf('stream_catalog - live only:')).toEqual([]);
    expect(rowsOf('stream_catalog + replay only:')).toEqual([expect.objectContaining({ stream_id: deleted, events: 7, last_revision: 6, category: 'payment' })]);
    expect(out[out.length - 1]).toBe('stream_catalog: DIFFERENT: 2 differing rows in 1 table(s) (1 changed, 1 missing from the live tables); fix with: projections rebuild stream_catalog');
    expect(out).toHaveLength(4);
    // several at once: each is verified to the end, and one difference makes the exit code 1
    const two = await cli(['projections', 'verify', 'stream_catalog', 'payments'], env);
    expect(two.code).toBe(1);
    expect(lines(two.stdout).filter((l) => /^\w+: (OK|DIFFERENT)/.test(l))).toEqual([
      'stream_catalog: DIFFERENT: 2 differing rows in 1 table(s) (1 changed, 1 missing from the live tables); fix with: projections rebuild stream_catalog',
      expect.stringMatching(/^payments: OK, live tables equal a fresh replay of \d+ events/),
    ]);

    const rebuilt = await cli(['projections', 'rebuild', 'stream_catalog'], env);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toMatch(/^rebuilt stream_catalog: 140 events in \d+\.\d s, position \d+\/\d+\n$/);

    const again = await cli(['projections', 'verify', 'stream_catalog'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('stream_catalog: OK');
    // --all: every projection, each OK
    const all = await cli(['projections', 'verify', '--all'], env);
    expect(all.code).toBe(0);
    expect(lines(all.stdout).filter((l) => / OK, live tables equal a fresh replay/.test(l)).map((l) => l.split(':')[0])).toEqual(ALL_PROJECTORS.map((p) => p.name));
    // no name and no --all: a usage error, nothing verified
    const none = await cli(['projections', 'verify'], env);
    expect(none.code).not.toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('name a projection to verify, or pass --all');
    const { rows } = await pg.query<{ stream_id: string; events: string }>(`SELECT stream_id, events::text FROM stream_catalog WHERE stream_id = ANY($1)`, [[edited, deleted]]);
    expect(rows.map((r) => r.events)).toEqual(['7', '7']);
    // verify cleans up its scratch schemas
    const { rows: schemas } = await pg.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'verify\\_%'`);
    expect(schemas).toEqual([]);
  });

  it('projections verify/rebuild of an unknown projection fails naming the known ones', async () => {
    const [verify, rebuild] = await Promise.all([cli(['projections', 'verify', 'nope'], env), cli(['projections', 'rebuild', 'nope'], env)]);
    const known = ALL_PROJECTORS.map((p) => p.name).join(', ');
    for (const run of [verify, rebuild]) {
      expect(run.code).not.toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`no projection named "nope"; known: ${known}`);
    }
  });

  it('events tail: follows the log from the start and from a position, sees new appends, stops on SIGINT with exit 0', async () => {
    const seeded = await pg.query<{ position: string }>(
      `SELECT transaction_id::text || '/' || global_position AS position FROM es_events ORDER BY transaction_id, global_position`,
    );
    expect(seeded.rows).toHaveLength(140);
    const last = seeded.rows[139].position;

    const fromStart = startCli(['events', 'tail', '--from', 'start'], env);
    const fromLast = startCli(['events', 'tail', '--from', last, '--pretty'], env);
    tails.push(fromStart, fromLast);
    await fromStart.waitFor('the 140 seeded events', (l) => l.length >= 140);
    expect(fromStart.lines).toHaveLength(140);
    const replayed = fromStart.lines.map((l) => JSON.parse(l));
    expect(replayed.map((e) => e.position)).toEqual(seeded.rows.map((r) => r.position));
    const perStream = new Map<string, number[]>();
    for (const e of replayed) perStream.set(e.stream, [...(perStream.get(e.stream) ?? []), e.revision]);
    expect([...perStream.keys()].sort()).toEqual([...streams].sort());
    for (const revs of perStream.values()) expect(revs).toEqual([0, 1, 2, 3, 4, 5, 6]);

    const stream = `cli-tail${randomUUID().slice(0, 8)}`;
    const appended = [
      { id: randomUUID(), type: 'TailProbeOne', data: { n: 1 }, metadata: { correlationId: 'cli-test', occurredAt: '2031-01-02T03:04:05.678Z' } }, // a test clock ahead
      { id: randomUUID(), type: 'TailProbeTwo', data: { n: 2 }, metadata: { correlationId: 'cli-test' } },
    ];
    const opened: OpenedStore = await openEventStore({ databaseUrl: database.url });
    try {
      await opened.store.append(stream, appended, 'no_stream');
    } finally {
      await opened.close();
    }

    await fromStart.waitFor('the 2 appended events', (l) => l.length >= 142);
    await fromLast.waitFor('the 2 appended events', (l) => l.length >= 2);
    const fresh = fromStart.lines.slice(140).map((l) => JSON.parse(l));
    expect(fresh.map((e) => [e.id, e.stream, e.revision, e.type])).toEqual(appended.map((a, i) => [a.id, stream, i, a.type]));
    expect(fresh.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
    // --pretty: one readable line per event, naming its stream
    fromLast.lines.forEach((line, i) => {
      const occurred = i === 0 ? '2031-01-02T03:04:05.678Z' : '-'; // the business's time, beside the wall time
      const expected = `${stream}  ${i}  ${fresh[i].position}  ${occurred}  ${fresh[i].recorded_at}  ${appended[i].type}  {"n":${i + 1}}`;
      expect(line.slice(0, expected.length)).toBe(expected);
      expect(line).toContain('corr=cli-test');
    });

    const [stopStart, stopLast] = await Promise.all([fromStart.interrupt(), fromLast.interrupt()]);
    for (const [tail, stopped] of [[fromStart, stopStart], [fromLast, stopLast]] as const) {
      expect({ code: stopped.code, signal: stopped.signal, stderr: tail.stderr() }).toEqual({ code: 0, signal: null, stderr: '' });
      expect(stopped.ms).toBeLessThan(3000);
    }
    expect(fromStart.lines).toHaveLength(142);
    expect(fromLast.lines).toHaveLength(2);
  });
});

describe('operator CLI on the embedded store', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeAll(() => void (dir = tempDir('payments-cli-')));
  afterAll(() => dir?.remove());

  it('refuses a data directory another live process holds (exit 2, naming the pid), and works once it is released', async () => {
    const env = { DATA_DIR: dir.path, DATABASE_URL: '' };
    const opened = await openEventStore({ dataDir: dir.path });
    let locked: Run;
    try {
      locked = await cli(['projections', 'status'], env);
    } finally {
      await opened.close();
    }
    expect(locked.code).toBe(2);
    expect(locked.stdout).toBe('');
    expect(locked.stderr).toContain(`data directory ${resolve(dir.path)} is in use by process ${process.pid}`);
    expect(existsSync(join(dir.path, 'LOCK'))).toBe(false);

    const free = await cli(['projections', 'status'], env, 60_000);
    expect(free).toMatchObject({ code: 0, stderr: '' });
    const [header, , row] = lines(free.stdout);
    expect(cells(header).slice(0, 4)).toEqual(['projection', 'position', 'events', 'lag']);
    expect(cells(row).slice(0, 4)).toEqual(['stream_catalog', 'start', '0', '0']);
    expect(existsSync(join(dir.path, 'LOCK'))).toBe(false); // the CLI released the directory on exit
  }, 90_000);

  it('refuses to read or rebuild a DATA_DIR that holds no store (a typo), creating nothing there (exit 2)', async () => {
    const missing = join(dir.path, 'typo');
    for (const args of [['events', 'stream', 'payment-pmt_x'], ['projections', 'status'], ['projections', 'rebuild', '--all']]) {
      const run = await cli(args, { DATA_DIR: missing, DATABASE_URL: '' }, 60_000);
      expect({ args, code: run.code, stdout: run.stdout, stderr: run.stderr.trim() }).toEqual({
        args,
        code: 2,
        stdout: '',
        stderr: `configuration error: no store in DATA_DIR ${resolve(missing)}: run this with the DATA_DIR the server uses (or its DATABASE_URL)`,
      });
    }
    expect(existsSync(missing)).toBe(false);
  }, 120_000);

  it('events stream prints the hashes of credentials as [redacted] (JSON lines and --pretty, which events tail prints too), at any depth; a transaction hash as it is', async () => {
    const env = { DATA_DIR: dir.path, DATABASE_URL: '' };
    const stream = `account-acc_${randomUUID().slice(0, 8)}`;
    const argon = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo';
    const opened = await openEventStore({ dataDir: dir.path });
    try {
      await opened.store.append(stream, [{ id: randomUUID(), type: 'SignupStarted', data: { email: 'a@example.com', password_hash: argon, codes: [{ code_hash: 'c1' }], sent: { token_hash: 't1', tx_hash: '0xabc', undo_token_hash: null } } }], 'no_stream');
    } finally {
      await opened.close();
    }
    const [json, pretty, backwards] = [await cli(['events', 'stream', stream], env, 60_000), await cli(['events', 'stream', stream, '--pretty'], env, 60_000), await cli(['events', 'stream', stream, '--backwards'], env, 60_000)];
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).data).toEqual({ email: 'a@example.com', password_hash: '[redacted]', codes: [{ code_hash: '[redacted]' }], sent: { token_hash: '[redacted]', tx_hash: '0xabc', undo_token_hash: null } });
    for (const run of [json, pretty, backwards]) {
      expect(run.stdout).not.toContain('argon2');
      expect(run.stdout).not.toMatch(/"(c1|t1)"/);
    }
  }, 120_000);
});
