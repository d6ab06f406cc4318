/**
 * `npm run start:api` and `npm run start:worker` apart against one PostgreSQL (and Redis):
 * the API process runs no projections; the worker does; a key created through the service is
 * usable on the API process as soon as the write returns.
 */
import { BusinessService } from '@lib/businesses';
import { OpenedStore, openEventStore } from '@lib/eventstore';
import { ProjectionRunner } from '@lib/projections';
import { ALL_PROJECTORS, standaloneOnboarding } from '@lib/wiring';
import { eventually } from '../support/eventually';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { ApiAndWorker, startApiAndWorker, startProcess as start } from '../support/processes';

/**
 * A writer that runs no projections: it waits on the checkpoints the worker moves. It creates
 * businesses as the CLI does (a simulated one gets its wallet).
 */
function writerOf(opened: OpenedStore): BusinessService {
  const waiter = new ProjectionRunner(opened.store, opened.db, ALL_PROJECTORS);
  const kek = { walletKek: process.env.WALLET_KEK ?? null, walletKekFile: null, embedded: false };
  return new BusinessService(opened.store, opened.db, waiter, { afterCreate: standaloneOnboarding(opened.store, opened.db, waiter, kek) });
}

describe('API and worker as separate processes on PostgreSQL and Redis', () => {
  let database: TestDatabase;
  let services: ApiAndWorker;

  beforeAll(async () => {
    database = await createTestDatabase('split');
    services = await startApiAndWorker({ DATABASE_URL: database.url, REDIS_URL: 'redis://127.0.0.1:6379', LOG_LEVEL: 'warn' });
  }, 90_000);

  afterAll(async () => {
    await services?.stop();
    await database.drop();
  });

  it('serves keys projected by the worker; the API process itself runs no projection', async () => {
    const opened = await openEventStore({ databaseUrl: database.url });
    try {
      // a writer that runs no projections: it waits on the checkpoints the worker moves
      const writer = writerOf(opened);
      const created = await writer.createBusiness({ name: 'Split Shop', simulated: true });
      const response = await fetch(`${services.base}/business`, { headers: { authorization: `Bearer ${created.secret_key}` } });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: { id: string } }).data.id).toBe(created.business.id);

      const health = (await (await fetch(`${services.base}/health`)).json()) as { data: { store: { adapter: string }; projections: { name: string; state: string; lag: number }[] } };
      expect(health.data.store.adapter).toBe('postgres');
      for (const projection of health.data.projections) expect(projection).toMatchObject({ state: 'stopped', lag: 0, updated_at: expect.stringMatching(/Z$/) }); // stopped here: the worker runs them, and moved each checkpoint
    } finally {
      await opened.close();
    }
    expect(services.worker.child.exitCode).toBeNull();
  });

  it('takes a payment to succeeded through the API process while the worker projects, and the worker fires wall-clock timers', async () => {
    const opened = await openEventStore({ databaseUrl: database.url });
    try {
      const writer = writerOf(opened);
      const { secret_key } = await writer.createBusiness({ name: 'Split Payments', simulated: true });
      const untouched = await writer.createBusiness({ name: 'Split wall clock', simulated: true });
      const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, key = secret_key) => {
        const response = await fetch(`${services.base}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as any };
      };
      const payment = (await call('POST', '/payments', { amount: 2500, currency: 'USD' })).body.data;
      expect(payment.status).toBe('pending'); // read from the projection the worker keeps: the API waited for it
      const checkout = await call('POST', '/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'USDC', network: 'ethereum' }, { 'idempotency-key': 'split-1' });
      expect(checkout.status).toBe(201);
      expect((await call('POST', `/checkouts/${checkout.body.data.id}/mark-sent`, {})).body.data.status).toBe('confirming');
      expect((await call('POST', '/test_clock/advance', { seconds: 30 })).status).toBe(200);
      expect((await call('GET', `/payments/${payment.id}`)).body.data.status).toBe('succeeded');

      // a business whose clock was never advanced: its payment expires in wall time
      const expiring = (await call('POST', '/payments', { amount: 2500, currency: 'USD', expires_at: new Date(Date.now() + 1000).toISOString() }, {}, untouched.secret_key)).body.data;
      const expired = await eventually(
        () => call('GET', `/payments/${expiring.id}`, undefined, {}, untouched.secret_key),
        (r) => r.body.data.status === 'failed',
        { what: 'the worker fired the wall-clock expiry' },
      );
      expect(expired.body.data.status).toBe('failed'); // fired by the worker's timer runner: the API process runs none
    } finally {
      await opened.close();
    }
  });

  it('answers its own writes while no worker runs: the API process applies the projections a write needs itself', async () => {
    const opened = await openEventStore({ databaseUrl: database.url });
    try {
      const { secret_key } = await writerOf(opened).createBusiness({ name: 'Split no worker', simulated: true });
      // the worker dies (no graceful stop): nothing moves the checkpoints but the API process
      const died = new Promise((r) => services.worker.child.once('exit', r));
      services.worker.child.kill('SIGKILL');
      await died;
      const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
        const response = await fetch(`${services.base}${path}`, {
          method,
          headers: { authorization: `Bearer ${secret_key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as any };
      };
      const created = await call('POST', '/payments', { amount: 1200, currency: 'USD', metadata: { order: 'o-1' } });
      expect(created.status).toBe(201);
      const read = await call('GET', `/payments/${created.body.data.id}`);
      expect({ status: read.status, id: read.body.data?.id }).toEqual({ status: 200, id: created.body.data.id }); // was 404: the read model lacked it
      const patched = await call('PATCH', `/payments/${created.body.data.id}`, { metadata: { note: 'n' } });
      expect({ status: patched.status, metadata: patched.body.data?.metadata }).toEqual({ status: 200, metadata: { order: 'o-1', note: 'n' } });
      const checkout = await call('POST', '/checkouts', { payment_code: created.body.data.url.split('/').pop(), asset: 'USDC', network: 'ethereum' }, { 'idempotency-key': 'split-no-worker' });
      expect(checkout.status).toBe(201);
      const listed = await call('GET', '/payments?limit=5');
      expect(listed.body.data.map((p: { id: string }) => p.id)).toContain(created.body.data.id);
    } finally {
      await opened.close();
    }
  });

  it('refuses to run the API alone on the embedded store, naming what to set', async () => {
    const lone = start('apps/api/src/main.ts', { DATABASE_URL: '', PORT: '0' }, ['--role=api']);
    const code = await new Promise((r) => lone.child.once('exit', r));
    expect(code).toBe(1);
    expect(lone.log()).toMatch(/configuration error: .*DATABASE_URL/);
  });

  it('refuses to start the API or the worker on a shared store without a wallet key-encryption key', async () => {
    for (const entry of ['apps/api/src/main.ts', 'apps/worker/src/main.ts']) {
      const keyless = start(entry, { DATABASE_URL: database.url, PORT: '0', WALLET_KEK: '', WALLET_KEK_FILE: '' });
      const code = await new Promise((r) => keyless.child.once('exit', r));
      expect({ entry, code }).toEqual({ entry, code: 1 });
      expect(keyless.log()).toMatch(/configuration error: WALLET_KEK or WALLET_KEK_FILE is required/);
    }
  });
});
