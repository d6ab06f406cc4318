import { Pool, PoolClient } from 'pg';

export type Row = Record<string, unknown>;

/** Anything that runs SQL: the database itself or an open transaction. */
export interface Sql {
  /**
   * Runs one statement. Hot statements pass a `name`: PostgreSQL then parses and plans them
   * once per connection instead of on every call (more than half an append's server CPU).
   */
  query<R extends object = Row>(text: string, params?: unknown[], name?: string): Promise<{ rows: R[]; rowCount: number }>;
  /** Runs a script of several statements without parameters (migrations, DDL). */
  exec(script: string): Promise<void>;
}

export type IsolationLevel = 'read committed' | 'repeatable read' | 'serializable';

/**
 * One SQL database: a PostgreSQL server through a pg pool, or the embedded PGlite database.
 * Event store, read models, checkpoints and timers all go through this, with the same SQL.
 */
export interface Database extends Sql {
  readonly kind: 'postgres' | 'embedded';
  /**
   * Runs fn in one transaction; commits when it resolves, rolls back when it throws. `setup`, a
   * statement without parameters (e.g. `SET LOCAL search_path …`), runs right after BEGIN — on
   * PostgreSQL in the same round trip.
   */
  transaction<T>(fn: (tx: Sql) => Promise<T>, isolation?: IsolationLevel, setup?: string): Promise<T>;
  /**
   * PostgreSQL: resolves once every statement and transaction this process had in flight when it
   * was called has ended, or after `limitMs`. Log readers see only rows below the oldest running
   * transaction, so a commit is hidden until the writes begun before it have ended; the event
   * store tells its subscriptions about an append only then, and they read it at the first try
   * instead of finding nothing and looking again. (Other processes' transactions can still hide
   * it: the subscriptions keep looking soon after an empty read.) Absent on the embedded store,
   * which runs one statement at a time.
   */
  earlierWorkDone?(limitMs: number): Promise<void>;
  close(): Promise<void>;
}

export function beginStatement(isolation: IsolationLevel): string {
  return isolation === 'read committed' ? 'BEGIN' : `BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}`;
}

export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;

  /** What this process has running on the server (statements outside transactions, whole transactions): see earlierWorkDone. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly pool: Pool) {}

  query<R extends object = Row>(text: string, params?: unknown[], name?: string) {
    return this.track(clientQuery<R>(this.pool, text, params, name));
  }

  transaction<T>(fn: (tx: Sql) => Promise<T>, isolation: IsolationLevel = 'read committed', setup?: string): Promise<T> {
    return this.track(this.runTransaction(fn, isolation, setup));
  }

  async earlierWorkDone(limitMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)));
    await Promise.race([Promise.allSettled([...this.inFlight]), limit]);
    clearTimeout(timer);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    work.then(
      () => this.inFlight.delete(work),
      () => this.inFlight.delete(work),
    );
    return work;
  }

  private async runTransaction<T>(fn: (tx: Sql) => Promise<T>, isolation: IsolationLevel, setup?: string): Promise<T> {
    const client = await this.pool.connect();
    try {
      // one simple-protocol message: the explicit BEGIN keeps the block open after it
      await client.query(setup ? `${beginStatement(isolation)}; ${setup}` : beginStatement(isolation));
      const result = await fn(inOrder(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async exec(script: string): Promise<void> {
    await this.track(this.pool.query(script));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * A transaction's statements, one after another on its connection: callers may issue several at
 * once (the projectors of a batch run side by side), and each is sent the moment the one before
 * it is answered — what pg's own queue did, without leaning on it (pg 8 deprecates a second
 * query on a busy client, pg 9 refuses it).
 */
function inOrder(client: PoolClient): Sql {
  let tail: Promise<unknown> = Promise.resolve();
  const next = <T>(run: () => Promise<T>): Promise<T> => {
    const result = tail.then(run);
    tail = result.catch(() => undefined);
    return result;
  };
  return {
    query: (text, params, name) => next(() => clientQuery(client, text, params, name)),
    exec: (script) => next(async () => void (await client.query(script))),
  };
}

/**
 * The name a statement is prepared under on PostgreSQL. A connection keeps a prepared statement
 * by name, and pg refuses a name it prepared with another text, so a caller whose text varies
 * under one name (a clause added when a cursor is given) would fail on a connection that ran the
 * other form — on PostgreSQL only, since the embedded store prepares by text. The first text a
 * name is seen with keeps the name; each other text gets its own (`name~2`, `name~3`, …), up to
 * MAX_TEXTS_PER_NAME; past that a text runs unnamed (unprepared), so texts that keep varying
 * (a batch's VALUES list) never fill the process's or the server's memory.
 */
const MAX_TEXTS_PER_NAME = 16;
const statementNames = new Map<string, { text: string; others: Map<string, string> }>();

export function statementName(name: string, text: string): string | undefined {
  const known = statementNames.get(name);
  if (known === undefined) {
    statementNames.set(name, { text, others: new Map() });
    return name;
  }
  if (known.text === text) return name;
  let other = known.others.get(text);
  if (other === undefined) {
    if (known.others.size >= MAX_TEXTS_PER_NAME - 1) return undefined;
    other = `${name}~${known.others.size + 2}`;
    known.others.set(text, other);
  }
  return other;
}

async function clientQuery<R extends object>(client: Pool | PoolClient, text: string, params?: unknown[], name?: string) {
  const prepared = name === undefined ? undefined : statementName(name, text);
  const result = prepared ? await client.query({ name: prepared, text, values: params }) : await client.query(text, params as unknown[]);
  return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
}

export function connectPostgres(url: string, max = 10): PostgresDatabase {
  const pool = new Pool({ connectionString: url, max, application_name: 'payments-service' });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return new PostgresDatabase(pool);
}
