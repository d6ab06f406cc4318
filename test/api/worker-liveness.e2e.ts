/**
 * Worker liveness seen from an `api` replica (decision 0017, addendum of 2026-11-29): an API
 * process and a worker process apart on PostgreSQL. GET /health on the API says `ok` while the
 * worker runs, `degraded` (no_worker_seen) once the worker has been SIGKILLed for longer than
 * WORKER_STALE_AFTER_SECONDS, and `ok` again when a worker is started again; the worker serves
 * its metrics on METRICS_PORT.
 */
import { eventually } from '../support/eventually';
import { freePort } from '../support/free-port';
import { TestDatabase, createTestDatabase } from '../support/postgres';
import { ServiceProcess, startApi, startWorker, stopProcess } from '../support/processes';

const STALE_AFTER_SECONDS = 3;

interface Health {
  status: string;
  issues: { code: string; message: string }[];
  workers: { running: { id: string; role: string; started_at: string; seen_at: string }[]; last_seen_at: string | null; stale_after_seconds: number };
}

describe('an api replica tells whether a worker runs', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let api: ServiceProcess | undefined;
  let worker: ServiceProcess | undefined;
  let base: string;
  let metricsPort: number;

  beforeAll(async () => {
    database = await createTestDatabase('wlive');
    metricsPort = await freePort();
    env = { DATABASE_URL: database.url, LOG_LEVEL: 'warn', WORKER_STALE_AFTER_SECONDS: String(STALE_AFTER_SECONDS) };
    worker = startWorker({ ...env, METRICS_PORT: String(metricsPort) });
    ({ api, base } = await startApi(env));
  }, 120_000);

  afterAll(async () => {
    await stopProcess(api);
    await stopProcess(worker);
    await database?.drop();
  });

  const health = async (): Promise<Health> => ((await (await fetch(`${base}/health`)).json()) as { data: Health }).data;

  it('ok with the worker running, degraded within the bound after it is SIGKILLed, ok again once it is restarted', async () => {
    const running = await eventually(health, (h) => h.status === 'ok' && h.workers.running.length === 1, { what: `ok with one worker\n${worker!.log()}`, timeoutMs: 60_000 });
    expect(running.issues).toEqual([]);
    expect(running.workers).toEqual({ running: [{ id: expect.stringMatching(/^wrk_[0-9a-f]{24}$/), role: 'worker', started_at: expect.stringMatching(/Z$/), seen_at: expect.stringMatching(/Z$/) }], last_seen_at: expect.stringMatching(/Z$/), stale_after_seconds: STALE_AFTER_SECONDS });
    // nothing about the host on the public route: the id is opaque
    expect(JSON.stringify(running.workers)).not.toContain(String(worker!.child.pid));
    const first = running.workers.running[0].id;

    await stopProcess(worker, 'SIGKILL');
    const killedAt = Date.now();
    const degraded = await eventually(health, (h) => h.status === 'degraded', { what: 'degraded after the worker was killed', timeoutMs: STALE_AFTER_SECONDS * 1000 + 7_000, intervalMs: 100 });
    expect(Date.now() - killedAt).toBeLessThan(STALE_AFTER_SECONDS * 1000 + 7_000);
    expect(degraded.workers.running).toEqual([]);
    expect(degraded.workers.last_seen_at).toEqual(expect.stringMatching(/Z$/));
    expect(degraded.issues).toEqual([{ code: 'no_worker_seen', message: expect.stringContaining(`has been seen for ${STALE_AFTER_SECONDS} s`) }]);

    worker = startWorker({ ...env, METRICS_PORT: String(metricsPort) });
    const again = await eventually(health, (h) => h.status === 'ok', { what: `ok once a worker runs again\n${worker.log()}`, timeoutMs: 60_000 });
    expect(again.issues).toEqual([]);
    expect(again.workers.running).toHaveLength(1);
    expect(again.workers.running[0].id).not.toBe(first);
  }, 150_000);

  it("the worker serves the metrics of its work on METRICS_PORT", async () => {
    // the worker running now (started again above, on the same METRICS_PORT)
    const text = await eventually(
      () => fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => (r.ok ? r.text() : '')),
      (t) => /^projection_running\{projection="payments"\} 1$/m.test(t),
      { what: `the worker's metrics\n${worker!.log()}`, timeoutMs: 60_000 },
    );
    expect(text).toMatch(/^projection_lag_events\{projection="payments"\} \d+$/m);
    expect(text).toMatch(/^workers_running [1-9]\d*$/m);
    expect(text).toMatch(/^worker_last_seen_age_seconds [\d.e-]+$/m);
    expect(text).toMatch(/^timers_due \d+$/m);
    expect(text).toMatch(/^timers_oldest_due_seconds [\d.e-]+$/m);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
  }, 90_000);
});
