import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { TestApi, appPerSuite, startTestApi } from './fixtures';

export const ROOT = join(__dirname, '..', '..');
export const CLI = join(ROOT, 'apps', 'cli', 'src', 'main.ts');

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function cliEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', EVENTSTORE_URL: '', ...env };
  delete merged.ROLE; // the CLI reads the service's configuration; keep this process's out of it
  delete merged.PORT;
  return merged;
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['-r', '@swc-node/register', CLI, ...args], {
    cwd: ROOT,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs one CLI command to completion; SIGKILLs it and fails after timeoutMs. */
export function cli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawnCli(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cli ${args.join(' ')} did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => (clearTimeout(timer), reject(error)));
    child.on('close', (code, signal) => (clearTimeout(timer), resolvePromise({ code, signal, stdout, stderr })));
  });
}

/**
 * The running app of a `describe` block on an embedded store (see appPerSuite), and `cli` runs
 * against it: the CLI finds the server's admin endpoint through its DATA_DIR.
 */
export function cliServerPerSuite(env: NodeJS.ProcessEnv = { TRUSTED_PROXIES: 'loopback' }): { readonly api: TestApi; cli(args: string[]): Promise<Run> } {
  return appPerSuite(
    () => startTestApi(env),
    async (api) => ({ cli: (args: string[]) => cli(args, { DATA_DIR: api.config.dataDir!, DATABASE_URL: '' }) }),
  );
}
