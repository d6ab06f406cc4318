import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { ConfigError, assertApiEntryRole, loadConfig } from '@lib/core';

/**
 * ROLE is the same as --role= (README), and the API entry point (`npm start`) is no worker:
 * ROLE=worker there used to start an `all` process serving the whole public API (operator audit
 * 2026-11-29, F3). Now it stops at start with a configuration error naming `npm run start:worker`.
 */
describe('ROLE and the API entry point', () => {
  const shared = { DATABASE_URL: 'postgres://127.0.0.1:1/none', WALLET_KEK: '0'.repeat(64) };

  it('reads ROLE=worker exactly as --role=worker; --role wins over ROLE', () => {
    expect(loadConfig({ ...shared, ROLE: 'worker' }, []).role).toBe('worker');
    expect(loadConfig(shared, ['node', 'main.js', '--role=worker']).role).toBe('worker');
    expect(loadConfig({ ...shared, ROLE: 'api' }, ['node', 'main.js', '--role=worker']).role).toBe('worker');
    expect(loadConfig({ ...shared, ROLE: 'worker' }, ['node', 'main.js', '--role=api']).role).toBe('api');
    expect(loadConfig({ DATA_DIR: '/tmp/unused' }, []).role).toBe('all');
  });

  it('the API entry point refuses a worker role, by ROLE or by --role, naming npm run start:worker', () => {
    for (const config of [loadConfig({ ...shared, ROLE: 'worker' }, []), loadConfig(shared, ['--role=worker'])]) {
      expect(() => assertApiEntryRole(config)).toThrow(ConfigError);
      expect(() => assertApiEntryRole(config)).toThrow(/npm run start:worker/);
    }
    expect(() => assertApiEntryRole(loadConfig({ ...shared, ROLE: 'api' }, []))).not.toThrow();
    expect(() => assertApiEntryRole(loadConfig({ DATA_DIR: '/tmp/unused' }, []))).not.toThrow();
  });

  it('`npm start` with ROLE=worker exits 1 with the configuration error and never listens', async () => {
    const root = resolve(__dirname, '../..');
    const run = await new Promise<{ code: number | null; output: string }>((done) => {
      const child = execFile(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/main.ts'], {
        cwd: root,
        env: { ...process.env, ...shared, ROLE: 'worker', PORT: '0', LOG_LEVEL: 'silent' },
        timeout: 60_000,
      }, (_error, stdout, stderr) => done({ code: child.exitCode, output: `${stdout}${stderr}` }));
    });
    expect(run.code).toBe(1);
    expect(run.output).toContain('configuration error: ROLE (or --role) is worker');
    expect(run.output).toContain('npm run start:worker');
    expect(run.output).not.toContain('listening');
  }, 90_000);
});
