import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './cli';
import { closeInTurn } from './close';
import { freePort } from './free-port';

/** A service process started from its TypeScript entry, with the tail of what it printed. */
export interface ServiceProcess {
  child: ChildProcess;
  log: () => string;
}

/** Starts `entry` (e.g. `apps/worker/src/main.ts`) as its own Node process; `env` is laid over this process's own, with no EventStoreDB and no role preset. */
export function startProcess(entry: string, env: NodeJS.ProcessEnv, args: string[] = []): ServiceProcess {
  let log = '';
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(ROOT, entry), ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', EVENTSTORE_URL: '', ROLE: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: unknown) => (log = (log + String(chunk)).slice(-50_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, log: () => log };
}

/** Stops a started process (SIGTERM: a graceful stop; SIGKILL: a crash) and waits for it to exit. */
export async function stopProcess(proc: ServiceProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!proc || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.child.once('exit', resolve));
  proc.child.kill(signal);
  await exited;
}

/**
 * Starts the API process (`--role=api`) on a port the OS had free and waits until it answers
 * `/health/live`. The port must be known before the process starts (its own URLs name it), so
 * another process can take it in between: an API that exits on EADDRINUSE is started again on a
 * fresh port, up to three times. Any other exit, or no answer within a minute, fails with its log.
 */
export async function startApi(env: NodeJS.ProcessEnv): Promise<{ api: ServiceProcess; port: number; base: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/api/v1`;
    const api = startProcess('apps/api/src/main.ts', { ...env, PORT: String(port) }, ['--role=api']);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const live = await fetch(`${base}/health/live`).then((r) => r.ok, () => false);
      if (live) return { api, port, base };
      if (api.child.exitCode !== null || api.child.signalCode !== null) {
        if (/EADDRINUSE/.test(api.log()) && attempt < 3) break;
        throw new Error(`api did not start:\n${api.log()}`);
      }
      if (Date.now() > deadline) {
        await stopProcess(api);
        throw new Error(`api did not answer /health/live within 60 s:\n${api.log()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Starts a worker process (`apps/worker/src/main.ts`, as `npm run start:worker`) on `env`. */
export function startWorker(env: NodeJS.ProcessEnv): ServiceProcess {
  return startProcess('apps/worker/src/main.ts', env);
}

/** The API process and a worker process apart on one shared store, as `npm run start:api` and `npm run start:worker` run them. */
export interface ApiAndWorker {
  api: ServiceProcess;
  /** The worker; a test that kills it may start another here (startWorker), and `stop` stops that one. */
  worker: ServiceProcess;
  /** http://127.0.0.1:<port>/api/v1 of the API process */
  base: string;
  /** Stops the API process, then the worker (SIGTERM), each awaited until it exits. */
  stop(): Promise<void>;
}

/** Starts a worker, then the API (startApi), both on `env`; when the API does not start, the worker is stopped again before the error is thrown. */
export async function startApiAndWorker(env: NodeJS.ProcessEnv): Promise<ApiAndWorker> {
  const worker = startWorker(env);
  try {
    const { api, base } = await startApi(env);
    const started: ApiAndWorker = { api, worker, base, stop: () => closeInTurn(() => stopProcess(started.api), () => stopProcess(started.worker)) };
    return started;
  } catch (error) {
    await stopProcess(worker);
    throw error;
  }
}
