import { Client as Pg } from 'pg';
import { cli } from '../support/cli';
import { eventually } from '../support/eventually';
import { businessWithKey, startTestApi, testStorage } from '../support/fixtures';
import { startReceiver } from '../webhooks/support';

/**
 * Auditors and support staff on a store with real payments and webhook deliveries: replay a
 * payment's history, verify the payments and events projections against a fresh replay, rebuild
 * every projection — and the rebuild sends no webhook twice.
 */
describe('operators on real payment data (PostgreSQL)', () => {
  it('audits a payment stream, verifies and rebuilds every projection without re-sending deliveries', async () => {
    const storage = await testStorage('postgres', 'staff');
    const rx = await startReceiver();
    const env = { ...storage.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', TRUSTED_PROXIES: 'loopback' };
    // the service runs with its public checkout address; the operator's CLI is not told it (as the README's commands are written)
    const serviceEnv = { ...env, CHECKOUT_BASE_URL: 'https://pay.example.test/checkout' };
    const api = await startTestApi(serviceEnv);
    let eventsBefore: unknown[] = [];
    let secretKey = '';
    let paymentId: string;
    try {
      const { client, secret_key } = await businessWithKey(api, true);
      secretKey = secret_key;
      expect((await client.post('/webhooks', { url: rx.url, event_types: ['*'] })).status).toBe(201);
      const payment = await client.createPayment();
      paymentId = payment.id;
      const checkout = await client.openCheckout(payment);
      await client.markSent(checkout.id, 'underpaid');
      await client.advance(16 * 60);
      const remainder = await client.postOnce(`/payments/${payment.id}/request-remainder`);
      await client.markSent(remainder.body.data.checkout.id, 'exact');
      await client.advance(30);
      expect((await client.payment(payment.id)).status).toBe('succeeded');
      await rx.waitFor(6); // created, updated…, underpaid, succeeded
      // before stopping: every projection at the head of the log (so every event has its
      // deliveries), and every delivery sent and recorded (the receiver has a request before the
      // dispatcher records its answer) — then a request after the restart can only be a re-send
      await eventually(
        async () => ({ health: await client.get('/health'), deliveries: await client.get('/webhook_deliveries?limit=100') }),
        ({ health, deliveries }) =>
          health.body.data.projections.every((p: { lag: number }) => p.lag === 0) &&
          deliveries.body.data.length >= 6 &&
          deliveries.body.data.every((d: { status: string }) => d.status === 'succeeded') &&
          rx.requests.length === deliveries.body.data.length,
        { what: 'projections at the head, every delivery sent once and recorded as succeeded' },
      );
      eventsBefore = (await client.get('/events?limit=100')).body.data;
      expect(JSON.stringify(eventsBefore)).toContain('https://pay.example.test/checkout/');
    } finally {
      await api.close();
    }
    const pg = new Pg({ connectionString: storage.env.DATABASE_URL });
    await pg.connect();
    try {
      const before = await pg.query(`SELECT id, status, attempt FROM webhook_deliveries ORDER BY id`);
      expect(before.rows.length).toBeGreaterThanOrEqual(6);
      const received = rx.requests.length;

      const history = await cli(['events', 'stream', `payment-${paymentId!}`], env);
      expect(history.code).toBe(0);
      const types = history.stdout.trim().split('\n').map((l) => JSON.parse(l).type);
      expect(types[0]).toBe('PaymentCreated');
      expect(types).toEqual(expect.arrayContaining(['PaymentUnderpaid', 'PaymentRemainderRequested', 'PaymentRemainderPaid', 'PaymentSucceeded']));

      for (const name of ['payments', 'events', 'webhook_endpoints']) {
        const verified = await cli(['projections', 'verify', name], env);
        expect({ name, code: verified.code, out: verified.stdout }).toEqual({ name, code: 0, out: expect.stringContaining(`${name}: OK`) });
        // rendered with the address the service recorded, not the CLI's default (a payment event's url)
        expect(verified.stderr).toContain("rendering with the service's recorded CHECKOUT_BASE_URL https://pay.example.test/checkout");
      }
      const rebuilt = await cli(['projections', 'rebuild', '--all'], env);
      expect(rebuilt.code).toBe(0);
      expect((await cli(['projections', 'verify', 'events'], env)).code).toBe(0);

      // a rebuild replays the outbox too, but sends nothing again: same deliveries, same attempts
      const after = await pg.query(`SELECT id, status, attempt FROM webhook_deliveries ORDER BY id`);
      expect(after.rows).toEqual(before.rows);
      const again = await startTestApi(serviceEnv);
      try {
        // every event as the API shows it is what it was before the rebuild (the url in a payment's data included)
        const eventsAfter = (await fetch(`${again.base}/events?limit=100`, { headers: { authorization: `Bearer ${secretKey}` } }).then((r) => r.json())) as { data: unknown[] };
        expect(eventsAfter.data).toEqual(eventsBefore);
        // nothing to wait for but time: a re-send would show within the dispatcher's first polls
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(rx.requests.length).toBe(received);
        const { rows } = await pg.query(`SELECT count(*)::int AS n FROM payments WHERE id = $1 AND status = 'succeeded'`, [paymentId!]);
        expect(rows[0].n).toBe(1);
      } finally {
        await again.close();
      }
    } finally {
      await pg.end();
      await rx.close();
      await storage.cleanup();
    }
  }, 120_000);
});
