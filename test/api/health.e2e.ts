import { randomUUID } from 'node:crypto';
import { EVENT_STORE, EventStore, openEventStore } from '@lib/eventstore';
import { appPerSuite, startTestApi } from '../support/fixtures';
import { eventually } from '../support/eventually';

describe('the service on its embedded default', () => {
  const suite = appPerSuite(() => startTestApi());

  it('answers /api/v1/health with the store and its projections, which follow the log', async () => {
    const store = suite.api.app.get<EventStore>(EVENT_STORE);
    const startedAt = Date.now();
    const { position } = await store.append(`health-${randomUUID().slice(0, 8)}`, [{ id: randomUUID(), type: 'Probe', data: {} }], 'no_stream');
    type Health = { data: { kind: string; status: string; store: { adapter: string; head: string }; projections: { name: string; lag: number; state: string }[] } };
    const read = async () => {
      const response = await fetch(`${suite.api.base}/health`);
      expect(response.status).toBe(200);
      expect(response.headers.get('service-request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
      return (await response.json()) as Health;
    };
    const body = await eventually(read, (b) => b.data.projections.every((p) => p.lag === 0), { what: 'every projection at the head' });
    expect(body.data).toMatchObject({ kind: 'health', status: 'ok', store: { adapter: 'embedded', head: `${position.commit}/${position.prepare}` } });
    const at = `${position.commit}/${position.prepare}`;
    const names = ['stream_catalog', 'businesses', 'payments', 'wallets', 'customers', 'links', 'search', 'accounts', 'account_passkeys', 'wallet_transactions', 'webhook_endpoints', 'events'];
    expect(body.data.projections).toEqual(names.map((name) => ({ name, state: 'running', position: at, lag: 0, updated_at: expect.stringMatching(/Z$/) })));
    // when the checkpoint last moved: not before the probe was appended
    for (const p of body.data.projections as unknown as { updated_at: string }[]) expect(Date.parse(p.updated_at)).toBeGreaterThanOrEqual(startedAt - 1000);
    // the one process runs the background work itself (role `all`): it counts as the worker it sees (decision 0017, addendum of 2026-11-29)
    expect((body.data as unknown as { issues: unknown[] }).issues).toEqual([]);
    expect((body.data as unknown as { workers: unknown }).workers).toEqual({
      running: [{ id: expect.stringMatching(/^wrk_[0-9a-f]{24}$/), role: 'all', started_at: expect.stringMatching(/Z$/), seen_at: expect.stringMatching(/Z$/) }],
      last_seen_at: expect.stringMatching(/Z$/),
      stale_after_seconds: 30,
    });
  });

  it('refuses a second owner of the same data directory with a clear error', async () => {
    await expect(openEventStore({ dataDir: suite.api.config.dataDir })).rejects.toThrow(/data directory .* is in use by process \d+/);
  });
});

describe('a projection failing on an event', () => {
  const suite = appPerSuite(() => startTestApi());

  it('turns GET /health to degraded, the projection retrying, while the others keep running (audit, 2026-11-28)', async () => {
    const store = suite.api.app.get<EventStore>(EVENT_STORE);
    // an event the payments projector cannot apply (a payment with no id): it retries, it never skips
    await store.append(`payment-pmt_${randomUUID().replace(/-/g, '').slice(0, 24)}`, [{ id: randomUUID(), type: 'PaymentCreated', data: {} }], 'no_stream');
    type Health = { data: { status: string; projections: { name: string; state: string; lag: number }[] } };
    const body = await eventually(
      async () => (await (await fetch(`${suite.api.base}/health`)).json()) as Health,
      (b) => b.data.projections.some((p) => p.name === 'payments' && p.state === 'retrying'),
      { what: 'the payments projection retrying' },
    );
    expect(body.data.status).toBe('degraded');
    expect((body.data as unknown as { issues: unknown[] }).issues).toEqual([{ code: 'projection_retrying', message: 'Projection payments retries a failing batch; the error is in the log.' }]);
    expect(body.data.projections.find((p) => p.name === 'payments')).toMatchObject({ state: 'retrying', lag: 1 });
    expect(body.data.projections.find((p) => p.name === 'stream_catalog')).toMatchObject({ state: 'running' });
    expect(JSON.stringify(body)).not.toMatch(/failed on|retrying a/); // the error itself goes to the log, not to this public route
  });
});
