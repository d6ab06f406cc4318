/**
 * The CLI's output piped into a reader that stops early (`npm run --silent cli -- projections
 * status --json | head -2`, as the README suggests piping JSON lines): it ends quietly, exit 0,
 * with no EPIPE stack trace (operator audit 2026-11-29, F6).
 */
import { spawn } from 'node:child_process';
import { TestDatabase, createTestDatabase } from '../support/postgres';
import { CLI, ROOT, cli, cliEnv } from '../support/cli';

/** `<cli args> | head -<lines>` in bash with pipefail: the CLI's exit code, what head printed, the CLI's stderr. */
function pipedIntoHead(args: string[], lines: number, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = `set -o pipefail; ${[process.execPath, '-r', '@swc-node/register', CLI, ...args].map(quote).join(' ')} | head -${lines}`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd: ROOT, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`timed out; stderr: ${stderr}`))), 60_000);
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

describe('operator CLI piped into head', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let stream: string;

  beforeAll(async () => {
    database = await createTestDatabase('clipipe');
    env = { DATABASE_URL: database.url };
    // one stream far longer than a pipe's buffer (64 KiB), so the CLI is still writing when head has gone
    const seeded = await cli(['dev', 'seed', '--streams', '1', '--events', '3000'], env, 120_000);
    expect(seeded.code).toBe(0);
    stream = `${/\(streams (\S+)0 …\)/.exec(seeded.stdout)![1]}0`;
  }, 180_000);

  afterAll(async () => {
    await database?.drop();
  });

  it('events stream | head -2: two lines, exit 0, nothing on stderr', async () => {
    const run = await pipedIntoHead(['events', 'stream', stream], 2, env);
    expect(run.stdout.trim().split('\n')).toHaveLength(2);
    expect(run.stderr).not.toMatch(/EPIPE|Error|at /);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  }, 90_000);

  it('projections status --json | head -2: two lines, exit 0, nothing on stderr', async () => {
    const run = await pipedIntoHead(['projections', 'status', '--json'], 2, env);
    expect(run.stdout.trim().split('\n').map((l) => Object.keys(JSON.parse(l)))).toEqual([expect.arrayContaining(['name', 'lag']), expect.arrayContaining(['name', 'lag'])]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  }, 90_000);
});
