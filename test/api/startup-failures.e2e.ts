import { createServer, Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventStore } from '@lib/eventstore';
import { startProcess } from '../support/processes';

/**
 * A service that cannot start says what to change on its last line, as a configuration error
 * names its variable (new-user audit, 2026-11-29: a port in use or a bad HOST ended in a raw
 * stack trace, and a data directory in use in Nest's coloured log): exit code 1, and the line
 * `configuration error: <VARIABLE>: …` on stderr.
 */
async function exitOf(env: NodeJS.ProcessEnv): Promise<{ code: number | null; lastLine: string; log: string }> {
  const proc = startProcess('apps/api/src/main.ts', { DATABASE_URL: '', ...env });
  const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
  const lines = proc.log().trim().split('\n');
  return { code, lastLine: lines.find((line) => line.startsWith('configuration error:')) ?? lines[lines.length - 1], log: proc.log() };
}

describe('a service that cannot start names what to change', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'startup-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('a port already in use: PORT, with EADDRINUSE kept in the line', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const { code, lastLine, log } = await exitOf({ PORT: String(port), DATA_DIR: fresh() });
      expect({ code, lastLine }).toEqual({ code: 1, lastLine: `configuration error: PORT: the address 127.0.0.1:${port} is already in use (EADDRINUSE): stop what listens there, or set PORT to a free port.` });
      expect(log).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('a HOST that is no address of this machine: HOST', async () => {
    const { code, lastLine } = await exitOf({ HOST: 'nohost.invalid', PORT: '0', DATA_DIR: fresh() });
    expect(code).toBe(1);
    expect(lastLine).toMatch(/^configuration error: HOST: cannot listen on nohost\.invalid:0 \((ENOTFOUND|EAI_AGAIN)\): set HOST to an address of this machine/);
  });

  it('a data directory another process owns: DATA_DIR, without a stack trace', async () => {
    const dataDir = fresh();
    const owner = await openEventStore({ dataDir });
    try {
      const { code, lastLine, log } = await exitOf({ PORT: '0', DATA_DIR: dataDir });
      expect(code).toBe(1);
      expect(lastLine).toMatch(new RegExp(`^configuration error: DATA_DIR: data directory ${dataDir} is in use by process ${process.pid}: .*Stop that process`));
      expect(log).not.toMatch(/\n\s+at /);
    } finally {
      await owner.close();
    }
  });
});
