import { ServicePauses } from '@lib/operations';
import { Metrics } from '@lib/wiring';
import { appPerSuite, businessWithKey, startTestApi } from '../support/fixtures';
import { eventually } from '../support/eventually';

describe('Prometheus metrics', () => {
  const suite = appPerSuite(
    () => startTestApi({ METRICS_PORT: '0', EVM_RPC_URL_BASE: 'http://127.0.0.1:9' }), // a watched network whose node does not answer
    async (api) => ({ metricsUrl: `http://127.0.0.1:${api.app.get(Metrics).metricsAddress()!.port}/metrics` }),
  );

  it('counts requests by method, route and status, with latency, and reports projection lag', async () => {
    const { secret_key } = await businessWithKey(suite.api, true, 'Metered', { contact: false });
    for (let i = 0; i < 3; i++) await fetch(`${suite.api.base}/business`, { headers: { authorization: `Bearer ${secret_key}` } });
    await fetch(`${suite.api.base}/business`);
    const text = await (await fetch(suite.metricsUrl)).text();
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/api\/v1\/business",status="200"\} 3$/m);
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/api\/v1\/business",status="401"\} 1$/m);
    expect(text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/business"\} 4$/m);
    expect(text).toMatch(/^projection_lag_events\{projection="businesses"\} \d+$/m);
    expect(text).toMatch(/^projection_running\{projection="stream_catalog"\} 1$/m);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect((await fetch(suite.metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
  });

  it('counts GET /payments pages answered from memory and read from the database, and the memory they hold', async () => {
    const { secret_key } = await businessWithKey(suite.api, true, 'Listed', { contact: false });
    const list = () => fetch(`${suite.api.base}/payments?limit=3`, { headers: { authorization: `Bearer ${secret_key}` } });
    const count = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    const before = await (await fetch(suite.metricsUrl)).text();
    for (let i = 0; i < 3; i++) expect((await list()).status).toBe(200);
    const after = await (await fetch(suite.metricsUrl)).text();
    expect(count(after, 'payment_pages_kept_misses_total') - count(before, 'payment_pages_kept_misses_total')).toBe(1);
    expect(count(after, 'payment_pages_kept_hits_total') - count(before, 'payment_pages_kept_hits_total')).toBe(2);
    expect(count(after, 'payment_pages_kept_bytes')).toBeGreaterThan(0);
  });

  it('shows what the operator paused (service_paused per target), and nothing once it is resumed', async () => {
    const pauses = suite.api.app.get(ServicePauses);
    const operator = { kind: 'operator', id: 'ada', name: 'ada' };
    await pauses.pause('network:polygon', 'node resync', operator);
    expect(await (await fetch(suite.metricsUrl)).text()).toMatch(/^service_paused\{target="network:polygon"\} 1$/m);
    await pauses.resume('network:polygon', operator);
    expect(await (await fetch(suite.metricsUrl)).text()).not.toMatch(/^service_paused\{/m);
  });

  it("shows each chain watcher: its failures while the node does not answer, its lease", async () => {
    const text = await eventually(
      () => fetch(suite.metricsUrl).then((r) => r.text()),
      (t) => /^chain_watcher_failures\{network="base"\} [1-9]\d*$/m.test(t),
      { what: 'the base watcher failing' },
    );
    expect(text).toMatch(/^chain_watcher_lease_held\{network="base"\} 1$/m);
  });

  it('keeps metrics off the public API', async () => {
    expect((await fetch(`${suite.api.base}/metrics`)).status).toBe(404);
  });
});
