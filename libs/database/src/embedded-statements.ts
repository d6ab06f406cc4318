import type { PGlite } from '@electric-sql/pglite';

/** What this file takes of PGlite's module: its protocol writer and result reader (public exports). */
export interface PgliteProtocol {
  protocol: {
    serialize: {
      parse(config: { name: string; text: string }): Uint8Array;
      describe(config: { type: 'S' | 'P'; name?: string }): Uint8Array;
      bind(config: { statement: string; values: (string | null)[] }): Uint8Array;
      execute(config: object): Uint8Array;
      close(config: { type: 'S' | 'P'; name: string }): Uint8Array;
      sync(): Uint8Array;
    };
  };
  parse: Pick<typeof import('@electric-sql/pglite').parse, 'parseDescribeStatementResults' | 'parseResults'>;
}

interface Statement {
  name: string;
  /** The parameters' type OIDs, as PostgreSQL inferred them when the statement was prepared. */
  paramTypes: number[];
}

/** PostgreSQL's "cached plan must not change result type" (a table changed under a statement). */
const FEATURE_NOT_SUPPORTED = '0A000';

/**
 * The embedded database's statements, prepared once and run by name (decision 0019, addendum
 * of the eleventh session). PGlite's own `query` sends every statement unnamed: PostgreSQL
 * parses, analyses and plans it on every call, and PGlite enters its WebAssembly six times
 * (parse, describe, bind, describe, execute, sync) — together more than a third of the
 * embedded store's CPU in `bench:payments`. Here a text seen a second time is prepared (Parse + Describe once), and
 * every later call is one entry: Bind, Describe, Execute and Sync in one message, answered
 * with the same serializers and parsers PGlite's `query` uses. PostgreSQL keeps the plan (a
 * generic one once it costs no more than the custom ones) and re-plans by itself when a table
 * it reads changes.
 *
 * Bounded: at most `capacity` statements stay prepared (the least recently used is closed), and
 * a text seen once is only remembered among the last `capacity × 4` texts, so statements whose
 * text varies (a batch's VALUES list) never fill the backend's memory.
 */
export class PreparedStatements {
  private readonly prepared = new Map<string, Statement>();
  private readonly seenOnce = new Set<string>();
  private counter = 0;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pglite: PGlite,
    private readonly module: PgliteProtocol,
    private readonly capacity = 256,
  ) {}

  /**
   * Runs one statement, after every statement asked before it has been answered: a
   * transaction's statements issued at once (the projectors of a batch) run in the order asked,
   * though one of them may first have to be prepared.
   */
  run<R extends object>(text: string, params: unknown[] = []): Promise<{ rows: R[]; rowCount: number }> {
    return this.inTurn(() => this.runNow<R>(text, params));
  }

  /**
   * Runs a script of statements without parameters (PGlite's `exec`: a transaction's BEGIN,
   * COMMIT or ROLLBACK, DDL), in its turn as `run` does: a ROLLBACK comes after every statement
   * the transaction issued, never before one still waiting.
   */
  async exec(script: string): Promise<void> {
    await this.inTurn(() => this.pglite.exec(script));
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }

  private async runNow<R extends object>(text: string, params: unknown[]): Promise<{ rows: R[]; rowCount: number }> {
    const statement = await this.statementFor(text);
    if (!statement) {
      const result = await this.pglite.query<R>(text, params);
      return { rows: result.rows, rowCount: result.affectedRows || result.rows.length };
    }
    try {
      return await this.execute<R>(statement, params);
    } catch (error) {
      if ((error as { code?: string }).code !== FEATURE_NOT_SUPPORTED) throw error;
      // the statement's result columns changed (a table dropped and made again): prepare it anew, once
      await this.close(text, statement);
      return this.execute<R>(await this.prepare(text), params);
    }
  }

  /** How many statements are prepared now (tests). */
  get size(): number {
    return this.prepared.size;
  }

  private async statementFor(text: string): Promise<Statement | null> {
    const known = this.prepared.get(text);
    if (known) {
      this.prepared.delete(text); // most recently used last
      this.prepared.set(text, known);
      return known;
    }
    if (this.seenOnce.delete(text)) return this.prepare(text);
    if (this.seenOnce.size >= this.capacity * 4) this.seenOnce.clear();
    this.seenOnce.add(text);
    return null;
  }

  private async prepare(text: string): Promise<Statement> {
    const { serialize } = this.module.protocol;
    const name = `embedded_${++this.counter}`;
    const { messages } = await this.protocol(join(serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()));
    const statement = { name, paramTypes: this.module.parse.parseDescribeStatementResults(messages) };
    this.prepared.set(text, statement);
    if (this.prepared.size > this.capacity) {
      const [oldest, old] = this.prepared.entries().next().value as [string, Statement];
      await this.close(oldest, old);
    }
    return statement;
  }

  private async execute<R extends object>(statement: Statement, params: unknown[]): Promise<{ rows: R[]; rowCount: number }> {
    const { serialize } = this.module.protocol;
    const serializers = this.pglite.serializers as Record<number, ((value: unknown) => string) | undefined>;
    // as PGlite's query serializes: null stays null, a value goes through its type's serializer, else toString
    const values = params.map((value, i) => (value === null || value === undefined ? null : (serializers[statement.paramTypes[i]]?.(value) ?? String(value))));
    const { messages } = await this.protocol(
      join(serialize.bind({ statement: statement.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()),
    );
    const [result] = this.module.parse.parseResults(messages, this.pglite.parsers);
    const rows = (result?.rows ?? []) as R[];
    return { rows, rowCount: result?.affectedRows || rows.length };
  }

  private async close(text: string, statement: Statement): Promise<void> {
    this.prepared.delete(text);
    const { serialize } = this.module.protocol;
    await this.protocol(join(serialize.close({ type: 'S', name: statement.name }), serialize.sync()), false);
  }

  /**
   * One exchange with PGlite, under its query lock as its own `query` takes it: a transaction's
   * statements may be issued at once (the projectors of a batch), and PGlite gathers an
   * exchange's answers in one place that a second exchange would replace.
   */
  private protocol(message: Uint8Array, throwOnError = true) {
    return this.pglite.runExclusive(() => this.pglite.execProtocol(message, { throwOnError }));
  }
}

function join(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
