import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import type { PGlite } from '@electric-sql/pglite';
import { Database, IsolationLevel, Row, Sql, beginStatement } from './database';
import { PgliteProtocol, PreparedStatements } from './embedded-statements';

/**
 * The embedded database: PGlite (PostgreSQL compiled to WebAssembly) on disk, driven through
 * its own API. (Its node-postgres shim loses the connection after any SQL error, so it is not
 * used.) PGlite runs one statement at a time; a mutex keeps a transaction's statements
 * together, so other callers wait for it as they would for a row lock.
 */
export class EmbeddedDatabase implements Database {
  readonly kind = 'embedded' as const;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly statements: PreparedStatements;

  constructor(
    private readonly pglite: PGlite,
    module: PgliteProtocol,
    private readonly onClose: () => void = () => undefined,
  ) {
    this.statements = new PreparedStatements(pglite, module);
  }

  query<R extends object = Row>(text: string, params?: unknown[]) {
    return this.exclusive(() => this.statements.run<R>(text, params));
  }

  transaction<T>(fn: (tx: Sql) => Promise<T>, isolation: IsolationLevel = 'read committed', setup?: string): Promise<T> {
    return this.exclusive(async () => {
      await this.statements.exec(beginStatement(isolation));
      if (setup) await this.statements.exec(setup);
      try {
        const result = await fn({
          query: (text, params) => this.statements.run(text, params),
          exec: (script) => this.statements.exec(script),
        });
        await this.statements.exec('COMMIT');
        return result;
      } catch (error) {
        await this.statements.exec('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async exec(script: string): Promise<void> {
    await this.exclusive(() => this.statements.exec(script));
  }

  async close(): Promise<void> {
    await this.exclusive(() => this.pglite.close());
    this.onClose();
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/**
 * PostgreSQL settings of the embedded database. Its memory lives in the process: PostgreSQL's
 * default 128 MB buffer cache alone added ~130 MB to the service's resident memory (measured:
 * docs/benchmarks.md, issue 10 point 6). 8 MB holds the hot rows of a shop's store; the files
 * stay in the operating system's page cache behind it. (16 MB, until the twelfth session: ~10 MB
 * more resident under bench:api's load, the app's peak 252–255 MB against 242–243; the payment
 * flow ran as fast with either, single creates ~15 % faster with 16.)
 */
const EMBEDDED_SETTINGS = ['-c', 'shared_buffers=8MB'];

/**
 * PostgreSQL's WebAssembly is compiled by V8's baseline compiler (Liftoff) only, never tiered up
 * to the optimizing one (TurboFan): tiering up PGlite's ~10 MB module kept ~60–90 MB of compiled
 * code and compiler memory resident for the life of the process (idle RSS of the embedded app
 * 293–316 MB against 211 MB on Node 20, 318 against 219 MB on Node 24), for no throughput
 * measured (docs/benchmarks.md, issue 10 point 6). The start scripts pass `--liftoff-only` to
 * node, which every Node version honours; set here as well, it also reaches the processes that
 * open a store without those scripts (the CLI, the tests) where V8 still takes the flag after
 * start-up: Node 20 does, Node 24 ignores it (its processes then tier up as before).
 */
function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only');
}

/**
 * Creates a new embedded database as a copy of a freshly initialised one (a template in the
 * system's temp folder, one per PGlite version and settings), made once in a short-lived child
 * process. PostgreSQL's initdb in WebAssembly holds ~700 MB of buffers that the service would
 * otherwise keep as resident memory for the rest of its life (measured: docs/benchmarks.md,
 * issue 10 point 6), and takes seconds; a copy takes a fraction of one.
 */
async function createDatabase(pgDir: string): Promise<void> {
  const packageDir = join(dirname(require.resolve('@electric-sql/pglite')), '..');
  const version = (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
  const settings = createHash('sha256').update(JSON.stringify(EMBEDDED_SETTINGS)).digest('hex').slice(0, 8);
  const template = join(tmpdir(), `payments-pglite-${version}-${settings}`);
  if (!existsSync(join(template, 'PG_VERSION'))) {
    const building = `${template}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      await initialiseInChildProcess(building);
      renameSync(building, template);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(join(template, 'PG_VERSION'))) throw error; // not another process's template winning the rename
    }
  }
  cpSync(template, pgDir, { recursive: true });
}

async function initialiseInChildProcess(pgDir: string): Promise<void> {
  const module = pathToFileURL(require.resolve('@electric-sql/pglite')).href;
  const script = `import(${JSON.stringify(module)}).then(async ({ PGlite }) => {
    const db = await PGlite.create(${JSON.stringify(pgDir)}, { startParams: [...PGlite.defaultStartParams, ...${JSON.stringify(EMBEDDED_SETTINGS)}] });
    await db.close();
  }).catch((error) => { console.error(error && error.stack || error); process.exit(1); });`;
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ['-e', script], { env: { ...process.env, NODE_OPTIONS: '' } }, (error, _stdout, stderr) =>
      error ? reject(new Error(`creating the embedded database in ${pgDir} failed: ${stderr || error.message}`)) : resolve(),
    );
  });
}

/**
 * Opens the embedded database under dataDir. One process owns a data directory at a time;
 * a second one gets DataDirectoryLockedError naming the owner.
 */
export async function openEmbedded(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const releaseLock = takeDirectoryLock(dir);
  try {
    const pgDir = join(dir, 'pg');
    if (!existsSync(join(pgDir, 'PG_VERSION'))) await createDatabase(pgDir);
    baselineWasmOnly();
    const { PGlite, protocol, parse } = await import('@electric-sql/pglite');
    // pg_trgm (the search index's trigrams, decision 0031) is an extension PGlite loads when told to, on every open
    const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
    const pglite = (await PGlite.create(pgDir, { startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS], extensions: { pg_trgm } })) as unknown as PGlite;
    return new EmbeddedDatabase(pglite, { protocol, parse }, releaseLock);
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/** The embedded data directory is held by another live process. */
export class DataDirectoryLockedError extends Error {
  override readonly name = 'DataDirectoryLockedError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `data directory ${dataDir} is in use by process ${pid}: one process owns an embedded store. ` +
        `Stop that process (or point DATA_DIR elsewhere), or set DATABASE_URL to share a PostgreSQL store between processes.`,
    );
  }
}

/** A lock file holding the owner's pid; a file left by a dead process is taken over. */
function takeDirectoryLock(dir: string): () => void {
  const lockPath = join(dir, 'LOCK');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off('exit', release);
        if (readFileSafe(lockPath) === String(process.pid)) rmSync(lockPath, { force: true });
      };
      process.on('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSafe(lockPath));
      if (owner && (owner === process.pid || isAlive(owner))) throw new DataDirectoryLockedError(dir, owner);
      rmSync(lockPath, { force: true }); // stale: its owner died (for example SIGKILL)
    }
  }
  throw new Error(`could not take the lock on data directory ${dir}`);
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
