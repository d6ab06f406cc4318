import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { type Sql, connectPostgres } from '@lib/database';
import { KeyEncryptionKey } from '@lib/wallets';
import {
  DeliveryRow,
  DeliveryStore,
  StoredSecret,
  WebhookSecretStore,
  WebhookSecretUnavailable,
  openWebhookSecret,
  sealClearSecrets,
} from '../../libs/webhooks/src';
import { startTestApi } from '../support/fixtures';
import { TEST_KEK, appendPayment, dispatcherKit, eventually, manualClock, testProjectors, webhookStorePerSuite } from './support';

/**
 * Webhook signing secrets sealed at rest under the service's key-encryption key (decision 0013,
 * addendum of 2026-11-30; migration 023): no table holds a secret in clear, deliveries still
 * verify with the secrets returned at creation and rotation, rows written in clear before the
 * change are sealed at start (idempotent, two processes at once), and a wrong KEK fails the
 * attempt with a logged reason instead of crashing or looping.
 */

/** Every row of every table of the database, as JSON text (bytea as hex): what a pg_dump would hold. */
async function tablesHolding(db: Sql, needles: readonly string[]): Promise<{ scanned: string[]; holding: string[] }> {
  const { rows: tables } = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const holding: string[] = [];
  for (const { name } of tables) {
    for (const needle of needles) {
      const { rows } = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${name}" x WHERE strpos(row_to_json(x)::text, $1) > 0`, [needle]);
      if (Number(rows[0].n) > 0) holding.push(name);
    }
  }
  return { scanned: tables.map((t) => t.name), holding };
}

/** The forms a secret could be found in: whole, its base64 body, the key bytes in hex, its text as bytea hex. */
function forms(secret: string): string[] {
  const body = secret.slice('whsec_'.length);
  return [secret, body, Buffer.from(body, 'base64').toString('hex'), Buffer.from(secret, 'utf8').toString('hex')];
}

describe.each(['postgres', 'embedded'] as const)('webhook signing secrets sealed at rest (%s)', (kind) => {
  const suite = webhookStorePerSuite(kind, 'whseal', testProjectors(), { allowPrivateUrls: true });
  const kit = dispatcherKit(() => suite.db);
  const { receiver, dispatcher } = kit;
  const secretRows = async (webhookId: string) =>
    (
      await suite.db.query<StoredSecret & { state: string }>(`SELECT id, webhook_id, secret, kek_id, nonce, ciphertext, tag, state FROM webhook_secrets WHERE webhook_id = $1 ORDER BY id`, [
        webhookId,
      ])
    ).rows;

  /** A business with an endpoint at `url` and one succeeded payment; resolves the endpoint (with its secret) and a delivery to it. */
  async function setup(url: string) {
    const shop = (await suite.businesses.createBusiness({ name: 'Shop', simulated: true })).business.id;
    const endpoint = await suite.endpoints.create(shop, { url, event_types: ['payment.succeeded'] });
    return { shop, endpoint, pay: () => pay(shop, endpoint.id) };
  }
  async function pay(shop: string, webhookId: string): Promise<DeliveryRow> {
    const id = `pmt_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    await appendPayment(suite.store, id, [
      { type: 'TestPaymentCreated', data: { payment_id: id, business_id: shop, mode: 'test', amount: 100 } },
      { type: 'TestPaymentStatusChanged', data: { status: 'succeeded' } },
    ]);
    await suite.settle();
    const rows = await eventually(
      async () => (await suite.db.query<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE webhook_id = $1 AND subject_id = $2`, [webhookId, id])).rows,
      (r) => r.length === 1,
      { timeoutMs: 20_000, what: 'the delivery' },
    );
    return rows[0];
  }

  afterEach(async () => {
    await kit.stopAll();
    // a claim takes every endpoint's due deliveries: end what a test left pending (as dispatcher.spec does)
    await suite.db.query(`UPDATE webhook_deliveries SET status = 'failed', next_retry_at = NULL, locked_until = NULL, lease_token = NULL WHERE status = 'retrying'`);
  });

  it('after a create and a rotation no table holds either secret; deliveries verify with the secret returned at creation', async () => {
    const rx = await receiver();
    const { shop, endpoint } = await setup(rx.url);
    const rotated = await suite.endpoints.rotateSecret(shop, endpoint.id);
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);

    const rows = await secretRows(endpoint.id);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ secret: null, kek_id: TEST_KEK.id, state: 'active' });
      expect([row.nonce!.length, row.tag!.length]).toEqual([12, 16]);
    }
    expect(rows.map((r) => openWebhookSecret(TEST_KEK, r)).sort()).toEqual([endpoint.secret, rotated.secret].sort());

    const scan = await tablesHolding(suite.db, [...forms(endpoint.secret), ...forms(rotated.secret)]);
    expect(scan.scanned).toEqual(expect.arrayContaining(['es_events', 'webhook_secrets', 'webhook_endpoints', 'webhook_deliveries']));
    expect(scan.holding).toEqual([]);

    const delivery = await pay(shop, endpoint.id);
    expect(await dispatcher().runDue()).toBe(1);
    const [request] = await rx.waitFor(1);
    const headers = request.headers as Record<string, string>;
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2); // current, then the one in its grace period
    expect(new Webhook(endpoint.secret).verify(request.body, headers)).toMatchObject({ id: delivery.event_id, type: 'payment.succeeded' });
    expect(new Webhook(rotated.secret).verify(request.body, headers)).toMatchObject({ id: delivery.event_id });
    expect(new Webhook(rotated.secret).verify(request.body, { ...headers, 'webhook-signature': headers['webhook-signature'].split(' ')[0] })).toBeTruthy();
    expect(await new WebhookSecretStore(suite.db, TEST_KEK).signingSecrets(endpoint.id)).toEqual([rotated.secret, endpoint.secret]);
    // nor did the delivery put one anywhere
    expect((await tablesHolding(suite.db, [...forms(endpoint.secret), ...forms(rotated.secret)])).holding).toEqual([]);
  });

  it('secrets kept in clear (written before migration 023) are sealed at start: once, with two processes at once, and still sign', async () => {
    const rx = await receiver();
    const { shop, endpoint } = await setup(rx.url);
    const rotated = await suite.endpoints.rotateSecret(shop, endpoint.id);
    const others = await Promise.all([1, 2, 3].map(() => setup('http://127.0.0.1:9/hook')));
    // the rows as an earlier version wrote them: in clear, nothing sealed
    const clear = new Map<string, string>();
    for (const { endpoint: e } of [{ endpoint }, ...others]) {
      for (const row of await secretRows(e.id)) clear.set(row.id, openWebhookSecret(TEST_KEK, row));
    }
    for (const [id, secret] of clear) {
      await suite.db.query(`UPDATE webhook_secrets SET secret = $2, kek_id = NULL, nonce = NULL, ciphertext = NULL, tag = NULL WHERE id = $1`, [id, secret]);
    }
    // and some pending ones of old crashed creates, more than one batch
    for (let i = 0; i < 230; i++) {
      const id = `whs_legacy${i}_${randomUUID().slice(0, 8)}`;
      const secret = `whsec_${randomUUID()}`;
      await suite.db.query(`INSERT INTO webhook_secrets (id, webhook_id, business_id, secret, created_at) VALUES ($1, $2, $3, $4, now())`, [id, `whk_legacy${i}`, 'biz_legacy', secret]);
      clear.set(id, secret);
    }
    expect((await suite.db.query(`SELECT id FROM webhook_secrets WHERE secret IS NOT NULL`)).rows).toHaveLength(clear.size);

    // two processes start at once (another pool on the same database: another process's view)
    const other = kind === 'postgres' ? { db: connectPostgres(suite.env.DATABASE_URL) } : null;
    try {
      const counts = await Promise.all([sealClearSecrets(suite.db, TEST_KEK), sealClearSecrets(other?.db ?? suite.db, TEST_KEK)]);
      expect(counts[0] + counts[1]).toBe(clear.size); // each row sealed by one of them
    } finally {
      await other?.db.close();
    }
    expect((await suite.db.query(`SELECT id FROM webhook_secrets WHERE secret IS NOT NULL OR kek_id IS NULL`)).rows).toEqual([]);
    const { rows } = await suite.db.query<StoredSecret>(`SELECT id, webhook_id, secret, kek_id, nonce, ciphertext, tag FROM webhook_secrets WHERE id = ANY($1::text[])`, [[...clear.keys()]]);
    expect(rows).toHaveLength(clear.size);
    for (const row of rows) {
      expect([row.secret, row.kek_id]).toEqual([null, TEST_KEK.id]);
      expect(openWebhookSecret(TEST_KEK, row)).toBe(clear.get(row.id));
    }
    // idempotent: a later start seals nothing and changes nothing
    expect(await sealClearSecrets(suite.db, TEST_KEK)).toBe(0);
    const again = (await suite.db.query<StoredSecret>(`SELECT id, webhook_id, secret, kek_id, nonce, ciphertext, tag FROM webhook_secrets WHERE id = ANY($1::text[])`, [[...clear.keys()]])).rows;
    expect(new Map(again.map((r) => [r.id, Buffer.from(r.ciphertext!).toString('hex')]))).toEqual(new Map(rows.map((r) => [r.id, Buffer.from(r.ciphertext!).toString('hex')])));
    expect((await tablesHolding(suite.db, [...clear.values()])).holding).toEqual([]);

    const delivery = await pay(shop, endpoint.id);
    expect(await dispatcher().runDue()).toBe(1);
    const [request] = await rx.waitFor(1);
    expect(new Webhook(endpoint.secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ id: delivery.event_id });
    expect(new Webhook(rotated.secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ id: delivery.event_id });
    await suite.db.query(`DELETE FROM webhook_secrets WHERE business_id = 'biz_legacy'`);
  });

  it('a secret sealed under another KEK: the attempt fails with the reason logged, no request, the schedule goes on', async () => {
    const rx = await receiver();
    const { endpoint, pay } = await setup(rx.url);
    const delivery = await pay();
    const errors: { error: unknown; deliveryId?: string }[] = [];
    const clock = manualClock(Date.now() + 1000);
    const wrong = KeyEncryptionKey.generate();
    const d = dispatcher({ kek: wrong, now: clock.now, onError: (error, deliveryId) => errors.push({ error, deliveryId }) });
    expect(await d.runDue()).toBe(1);
    expect(await d.runDue()).toBe(0); // not claimed again at once: no loop
    expect(rx.requests).toHaveLength(0);
    const row = (await new DeliveryStore(suite.db).get(delivery.id))!;
    expect(row).toMatchObject({ status: 'retrying', attempt: 1, response_status: null });
    expect(row.attempts.map((a) => [a.trigger, a.error])).toEqual([['automatic', 'not sent: signing secret sealed under another key-encryption key']]);
    expect(new Date(row.next_retry_at!).getTime()).toBe(clock.now().getTime() + 5_000);
    expect(errors).toHaveLength(1);
    expect(errors[0].deliveryId).toBe(delivery.id);
    const message = (errors[0].error as Error).message;
    expect(message).toMatch(new RegExp(`webhook endpoint ${endpoint.id} was sealed under another key-encryption key \\(${TEST_KEK.id}\\); configure that WALLET_KEK`));
    expect(message).not.toContain(endpoint.secret.slice(6));

    // the manual sends' read (test events, resends) says the same
    await expect(new WebhookSecretStore(suite.db, wrong).signingSecrets(endpoint.id)).rejects.toThrow(WebhookSecretUnavailable);
    await expect(new WebhookSecretStore(suite.db, wrong).signingSecrets(endpoint.id)).rejects.toThrow(/sealed under another key-encryption key .*configure that WALLET_KEK/);

    // with the right KEK configured again, the next attempt is sent and verifies
    clock.advance(5_000);
    expect(await dispatcher({ now: clock.now }).runDue()).toBe(1);
    const [request] = await rx.waitFor(1);
    expect(new Webhook(endpoint.secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ id: delivery.event_id });
  });

  it('a sealed secret moved to another row does not open', async () => {
    const { endpoint } = await setup('http://127.0.0.1:9/hook');
    const [row] = await secretRows(endpoint.id);
    expect(() => openWebhookSecret(TEST_KEK, { ...row, webhook_id: 'whk_other' })).toThrow(/does not open under key-encryption key/);
    expect(() => openWebhookSecret(TEST_KEK, { ...row, id: 'whs_other' })).toThrow(WebhookSecretUnavailable);
  });
});

describe('webhook secrets sealed at a process start (PostgreSQL)', () => {
  const suite = webhookStorePerSuite('postgres', 'whboot', testProjectors(), { allowPrivateUrls: true });

  it.each(['api', 'all'])('a ROLE=%s process seals the rows kept in clear when it starts', async (role) => {
    const shop = (await suite.businesses.createBusiness({ name: 'Shop', simulated: true })).business.id;
    const endpoint = await suite.endpoints.create(shop, { url: 'http://127.0.0.1:9/hook', event_types: ['payment.succeeded'] });
    await suite.db.query(`UPDATE webhook_secrets SET secret = $2, kek_id = NULL, nonce = NULL, ciphertext = NULL, tag = NULL WHERE webhook_id = $1`, [endpoint.id, endpoint.secret]);
    if (role === 'all') await suite.runner.stop(); // the app runs the projections itself (this block's last test)
    const app = await startTestApi({ DATABASE_URL: suite.env.DATABASE_URL, ROLE: role, PROJECTION_CATCH_UP_MS: 'off' });
    try {
      const { rows } = await suite.db.query<StoredSecret>(`SELECT id, webhook_id, secret, kek_id, nonce, ciphertext, tag FROM webhook_secrets WHERE webhook_id = $1`, [endpoint.id]);
      expect(rows.map((r) => [r.secret, r.kek_id])).toEqual([[null, TEST_KEK.id]]);
      expect(openWebhookSecret(TEST_KEK, rows[0])).toBe(endpoint.secret);
    } finally {
      await app.close();
    }
  });
});
