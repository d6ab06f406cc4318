import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { rebuildProjection, verifyProjection } from '@lib/projections';
import { walletsProjector } from '@lib/wallets';
import { linkIn } from '../../support/smtp';
import { Browser, PASSWORD, accountsAppForSuite, steppedUpOwner } from '../../accounts/support';
import { Client } from '../../support/client';
import { eventually } from '../../support/eventually';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * DELETE /wallet over real HTTP (issue 15 "wallet deletion", issue 19 B16; decision 0041): the real
 * app on the embedded store, a session cookie per browser with a step-up, the cancel link read
 * from a real SMTP server, the 24 hours passed on the business's test clock (never slept).
 */
describe('wallet deletion and setup over HTTP', () => {
  const app = accountsAppForSuite();
  const logs = app.logs;
  const tokens: string[] = [];

  /** A signed-up owner of a simulated business (its wallet made at sign-up), stepped up. */
  async function owner() {
    const o = await steppedUpOwner(app);
    return { ...o, email: o.person.email };
  }

  /** A secret test key of the owner's business, as an API client. */
  async function keyOf(o: Awaited<ReturnType<typeof owner>>): Promise<Client> {
    const created = await o.as.post('/api-keys', { type: 'secret', mode: 'test', name: 'Server' });
    expect(created.status).toBe(201);
    return new Client(app.api, created.body.data.secret);
  }

  /** The cancel link's token from the newest e-mail to `to` that has one. */
  async function cancelToken(to: string): Promise<string> {
    const mail = await eventually(() => app.smtp.server.messages.filter((m) => m.to.includes(to.toLowerCase()) && /wallet-change\/cancel#token=/.test(m.text ?? '')).at(-1), { what: `cancel link to ${to}` });
    const match = /\/wallet-change\/cancel#token=([A-Za-z0-9_.-]+)$/.exec(linkIn(mail));
    if (!match) throw new Error('no token in the cancel link');
    tokens.push(match[1]);
    return match[1];
  }

  /** A payment the business received (a simulated transfer, confirmed on its test clock). */
  async function receivePayment(client: Client): Promise<void> {
    const payment = await client.createPayment({ amount: 2500 });
    const checkout = await client.openCheckout(payment);
    await client.markSent(checkout.id, 'exact');
    await client.advance(30);
    expect((await client.payment(payment.id)).status).toBe('succeeded');
  }

  it('API keys get 403 session_required; a session without a recent step-up 403 step_up_required', async () => {
    const o = await owner();
    const client = await keyOf(o);
    const byKey = await client.call('DELETE', '/wallet');
    expect([byKey.status, byKey.body.error.code]).toEqual([403, 'session_required']);
    app.clock.advance(16 * 60_000); // the step-up (and the sign-in) older than 15 minutes
    const stale = await o.as.delete('/wallet');
    expect([stale.status, stale.body.error.code]).toEqual([403, 'step_up_required']);
    expect((await o.as.get('/wallet')).status).toBe(200); // nothing deleted
    expect((await o.b.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    expect((await o.as.delete('/wallet')).status).toBe(200);
  });

  it('in setup with nothing received: 200, the wallet removed at once; finishing setup then needs a wallet (409 wallet_required)', async () => {
    const o = await owner();
    const wallet = (await o.as.get('/wallet')).body.data;
    expect((await o.as.get(`/businesses/${o.businessId}/setup`)).body.data).toEqual({ kind: 'business_setup', business_id: o.businessId, status: 'in_setup', requirements: [], finished_at: null });
    const mails = app.smtp.countTo(o.email);
    const deleted = await o.as.delete('/wallet');
    expect([deleted.status, deleted.body]).toEqual([200, { data: { kind: 'wallet', id: wallet.id, deleted: true } }]);
    expect((await o.as.get('/wallet')).body.error.code).toBe('not_found');
    expect(app.smtp.countTo(o.email)).toBe(mails); // no link: nothing to cancel
    const again = await o.as.delete('/wallet');
    expect([again.status, again.body.error.code]).toEqual([404, 'not_found']);

    const setup = await o.as.get(`/businesses/${o.businessId}/setup`);
    expect(setup.body.data).toMatchObject({ status: 'in_setup', requirements: ['wallet'] });
    const refused = await o.as.post(`/businesses/${o.businessId}/finish-setup`);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'wallet_required']);
    // checkouts have nowhere to send payments
    const client = await keyOf(o);
    const payment = await client.createPayment();
    const checkout = await client.postOnce('/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'USDC', network: 'ethereum' });
    expect([checkout.status, checkout.body.error.code]).toEqual([409, 'not_accepting']);

    // a new wallet, then setup finishes (again: the same answer)
    expect((await o.as.post('/wallet', { type: 'created' })).status).toBe(201);
    const finished = await o.as.post(`/businesses/${o.businessId}/finish-setup`);
    expect(finished.status).toBe(200);
    expect(finished.body.data).toEqual({ kind: 'business_setup', business_id: o.businessId, status: 'finished', requirements: [], finished_at: expect.any(String) });
    expect((await o.as.post(`/businesses/${o.businessId}/finish-setup`)).body.data).toEqual(finished.body.data);
    // finished setup, nothing received: the deletion waits 24 hours, and can be canceled from the dashboard
    const held = await o.as.delete('/wallet');
    expect(held.status).toBe(202);
    const canceled = await o.as.post(`/wallet-changes/${held.body.data.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({ id: held.body.data.id, status: 'canceled', canceled_at: expect.any(String) });
    expect((await o.as.post(`/wallet-changes/${held.body.data.id}/cancel`)).body.data).toEqual(canceled.body.data); // again: unchanged
    expect((await o.as.get('/wallet')).body.data.pending_change).toBeNull();
  });

  it('in setup with a transfer still confirming, or money under review: 202, held 24 hours — the money settles into this wallet (race audit F2, 2026-11-29)', async () => {
    const confirming = await owner();
    const client = await keyOf(confirming);
    const payment = await client.createPayment({ amount: 2500 });
    const checkout = await client.openCheckout(payment);
    expect((await client.markSent(checkout.id, 'exact')).status).toBe('confirming');
    const held = await confirming.as.delete('/wallet');
    expect([held.status, held.body.data?.kind, held.body.data?.status]).toEqual([202, 'wallet_change', 'pending']);
    await client.advance(30);
    expect((await client.payment(payment.id)).status).toBe('succeeded');
    expect((await confirming.as.get('/wallet')).status).toBe(200); // still there, its deletion pending

    const late = await owner();
    const lateClient = await keyOf(late);
    const reviewed = await lateClient.createPayment({ amount: 2500 });
    const lateCheckout = await lateClient.openCheckout(reviewed);
    expect((await lateClient.markSent(lateCheckout.id, 'late')).status).toBe('needs_review');
    await lateClient.advance(30);
    expect((await lateClient.payment(reviewed.id)).status).toBe('needs_review');
    const lateHeld = await late.as.delete('/wallet');
    expect([lateHeld.status, lateHeld.body.data?.kind]).toEqual([202, 'wallet_change']);
  });

  it('after a payment: 202 pending for 24 hours, e-mailed link cancels it; once applied, checkouts answer 409 not_accepting', async () => {
    const o = await owner();
    const stranger = await owner();
    const client = await keyOf(o);
    await receivePayment(client);
    const wallet = (await o.as.get('/wallet')).body.data;

    // 202: the wallet change, pending; GET /wallet shows it
    const held = await o.as.delete('/wallet');
    expect(held.status).toBe(202);
    const change = held.body.data;
    expect(change).toEqual({ kind: 'wallet_change', id: expect.stringMatching(/^wcr_/), change: 'delete', status: 'pending', wallet_id: wallet.id, effective_at: expect.any(String), canceled_at: null, created_at: expect.any(String) });
    expect(Date.parse(change.effective_at) - Date.parse(change.created_at)).toBe(DAY_MS);
    expect((await o.as.get('/wallet')).body.data.pending_change).toEqual(change);
    const second = await o.as.delete('/wallet');
    expect([second.status, second.body.error.code]).toEqual([409, 'wallet_change_pending']);
    // another business's person cannot cancel it (404), nor see it
    const foreign = await stranger.as.post(`/wallet-changes/${change.id}/cancel`);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    const foreignSetup = await stranger.as.get(`/businesses/${o.businessId}/setup`);
    expect([foreignSetup.status, foreignSetup.body.error.code]).toEqual([404, 'not_found']);

    // the e-mailed link cancels it without signing in
    const token = await cancelToken(o.email);
    expect(token.startsWith(`${o.businessId}.`)).toBe(true);
    const byLink = await new Browser(app.api).post('/wallet-changes/cancel', { token });
    expect(byLink.status).toBe(200);
    expect(byLink.body.data).toEqual({ ...change, status: 'canceled', canceled_at: expect.any(String) });
    expect((await o.as.get('/wallet')).body.data.pending_change).toBeNull();
    const reused = await new Browser(app.api).post('/wallet-changes/cancel', { token });
    expect([reused.status, reused.body.error.code, reused.body.error.field]).toEqual([400, 'invalid_token', 'token']);
    const forged = await new Browser(app.api).post('/wallet-changes/cancel', { token: `${o.businessId}.${'A'.repeat(43)}` });
    expect([forged.status, forged.body.error.code]).toEqual([400, 'invalid_token']);

    // asked again; a checkout opened meanwhile keeps its address; 24 hours later the wallet is gone
    const again = await o.as.delete('/wallet');
    expect(again.status).toBe(202);
    const token2 = await cancelToken(o.email);
    expect(token2).not.toBe(token);
    const open = await client.openCheckout(await client.createPayment());
    expect(open.crypto.address).toEqual(expect.any(String));
    await client.advance(DAY_MS / 1000 - 120);
    expect((await o.as.get('/wallet')).body.data.pending_change.id).toBe(again.body.data.id); // still receiving before effective_at
    await client.advance(180);
    await eventually(async () => ((await o.as.get('/wallet')).status === 404 ? true : undefined), { what: 'the wallet deleted at effective_at' });

    const late = await new Browser(app.api).post('/wallet-changes/cancel', { token: token2 });
    expect([late.status, late.body.error.code]).toEqual([409, 'wallet_change_applied']);
    const lateDashboard = await o.as.post(`/wallet-changes/${again.body.data.id}/cancel`);
    expect([lateDashboard.status, lateDashboard.body.error.code]).toEqual([409, 'wallet_change_applied']);
    const refused = await client.postOnce('/checkouts', { payment_code: (await client.createPayment()).url.split('/').pop(), asset: 'USDC', network: 'ethereum' });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'not_accepting']);
    const kept = await client.get(`/checkouts/${open.id}`);
    expect(kept.body.data.crypto.address).toBe(open.crypto.address);
  });

  it('no e-mail, no hold: SMTP refusing → 503 email_unavailable, the request withdrawn (nothing pending, no timer)', async () => {
    const o = await owner();
    expect((await o.as.post(`/businesses/${o.businessId}/finish-setup`)).status).toBe(200);
    app.smtp.server.refuse();
    try {
      const refused = await o.as.delete('/wallet');
      expect([refused.status, refused.body.error.code]).toEqual([503, 'email_unavailable']);
    } finally {
      app.smtp.server.accept();
    }
    expect((await o.as.get('/wallet')).body.data.pending_change).toBeNull();
    const db = app.api.app.get<Database>(DATABASE);
    const scheduled = async () => (await db.query(`SELECT count(*)::int AS n FROM timers WHERE business_id = $1 AND kind = 'wallet_change.apply' AND status = 'scheduled'`, [o.businessId])).rows[0].n;
    expect(await scheduled()).toBe(0);
    const held = await o.as.delete('/wallet');
    expect(held.status).toBe(202);
    expect((await o.as.post(`/wallet-changes/${held.body.data.id}/cancel`)).status).toBe(200);
  });

  it('concurrent DELETE /wallet: one 202, the rest 409, exactly one e-mail and one apply timer, and its link cancels (audit F1, 2026-11-29)', async () => {
    const o = await owner();
    const client = await keyOf(o);
    await receivePayment(client);
    const mailsTo = () => app.smtp.server.messages.filter((m) => m.to.includes(o.email.toLowerCase()) && /wallet-change\/cancel#token=/.test(m.text ?? '')).length;
    expect(mailsTo()).toBe(0);

    const answers = await Promise.all(Array.from({ length: 8 }, () => o.as.delete('/wallet')));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([202, 409, 409, 409, 409, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.error.code).toBe('wallet_change_pending');
    const change = answers.find((a) => a.status === 202)!.body.data;

    // every request has answered, so every e-mail it sent has gone: exactly one, the winner's
    const token = await cancelToken(o.email);
    expect(mailsTo()).toBe(1);
    // the refused requests left no apply timer behind
    const db = app.api.app.get<Database>(DATABASE);
    const timers = (await db.query(`SELECT subject FROM timers WHERE business_id = $1 AND kind = 'wallet_change.apply' AND status = 'scheduled'`, [o.businessId])).rows;
    expect(timers.map((t) => t.subject)).toEqual([change.id]);

    const byLink = await new Browser(app.api).post('/wallet-changes/cancel', { token });
    expect(byLink.status).toBe(200);
    expect(byLink.body.data).toEqual({ ...change, status: 'canceled', canceled_at: expect.any(String) });
  });

  it('no cancel token reaches a log line or the log of events', async () => {
    expect(tokens.length).toBeGreaterThan(1);
    const events = JSON.stringify((await app.api.app.get<EventStore>(EVENT_STORE).readAll({ maxCount: 100_000 })).map((e) => [e.type, e.data, e.metadata]));
    for (const token of tokens) {
      expect(logs.join('')).not.toContain(token);
      expect(events).not.toContain(token);
      expect(events).not.toContain(token.split('.')[1]);
    }
  });

  it('the wallets projection replays the changes to the same tables (verify; a rebuild in small batches)', async () => {
    const store = app.api.app.get<EventStore>(EVENT_STORE);
    const db = app.api.app.get<Database>(DATABASE);
    const snapshot = async () => ({
      wallets: (await db.query('SELECT * FROM wallets ORDER BY business_id')).rows,
      changes: (await db.query('SELECT * FROM wallet_changes ORDER BY change_id')).rows,
    });
    const before = await snapshot();
    // the suite's changes so far: one applied, five canceled (one the withdrawn request whose notice SMTP refused, one the
    // concurrent requests' single change), and the two held in setup (race audit F2) still pending
    expect(before.changes.map((c) => c.status).sort()).toEqual(['applied', 'canceled', 'canceled', 'canceled', 'canceled', 'canceled', 'pending', 'pending']);
    expect((await verifyProjection(store, db, walletsProjector)).differences).toEqual([]);
    await rebuildProjection(store, db, walletsProjector, { batchSize: 2 });
    expect(await snapshot()).toEqual(before);
  });
});
