import { english, generateMnemonic } from 'viem/accounts';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { IdempotencyStore, fingerprint } from '@lib/idempotency';
import { keysOfPhrase } from '@lib/wallets';
import { IDEMPOTENCY_STORE } from '../../../apps/api/src/platform/idempotency.interceptor';
import { PASSWORD, accountsAppForSuite, steppedUpOwner } from '../../accounts/support';
import { Client } from '../../support/client';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const LEGAL = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

/**
 * POST /wallet/recovery-phrase over real HTTP (issue 15; decision 0041 "Recovery phrase"): the
 * real app on the embedded store, a session cookie per browser with a step-up, every log line
 * captured; the phrase must reach the answer and nothing else (no log line, no event, no
 * idempotency record).
 */
describe('the wallet recovery phrase over HTTP', () => {
  const app = accountsAppForSuite();
  const logs = app.logs;
  const phrases: string[] = [];

  /** A signed-up owner of a simulated business, stepped up, its sign-up wallet replaced by `wallet` (POST /wallet's body), or none. */
  async function owner(wallet: Record<string, unknown> | null) {
    const o = await steppedUpOwner(app);
    expect((await o.as.delete('/wallet')).status).toBe(200); // in setup with nothing received: gone at once
    const created = wallet === null ? null : await o.as.post('/wallet', wallet);
    if (created) expect(created.status).toBe(201);
    return { ...o, accountId: o.person.account.id as string, created: created?.body.data };
  }

  const reveal = (o: Awaited<ReturnType<typeof owner>>, headers: Record<string, string> = {}) => o.as.post('/wallet/recovery-phrase', undefined, headers);

  it('a created wallet: its owner, stepped up, sees the 24 words the creation showed, with Cache-Control: no-store', async () => {
    const o = await owner({ type: 'created' });
    const phrase: string = o.created.recovery_phrase;
    expect(phrase.split(' ')).toHaveLength(24);
    phrases.push(phrase);
    const shown = await reveal(o);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ data: { kind: 'recovery_phrase', wallet_id: o.created.id, recovery_phrase: phrase } });
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect((await o.as.get('/wallet')).body.data).not.toHaveProperty('recovery_phrase');
  });

  it('an imported wallet answers the imported phrase', async () => {
    const o = await owner({ type: 'imported', recovery_phrase: ABANDON });
    phrases.push(ABANDON);
    const shown = await reveal(o);
    expect([shown.status, shown.body.data]).toEqual([200, { kind: 'recovery_phrase', wallet_id: o.created.id, recovery_phrase: ABANDON }]);
  });

  it('API keys: 403 session_required; a session without a recent step-up: 403 step_up_required', async () => {
    const o = await owner({ type: 'created' });
    phrases.push(o.created.recovery_phrase);
    const key = await o.as.post('/api-keys', { type: 'secret', mode: 'test', name: 'Server' });
    expect(key.status).toBe(201);
    const byKey = await new Client(app.api, key.body.data.secret).call('POST', '/wallet/recovery-phrase');
    expect([byKey.status, byKey.body.error.code]).toEqual([403, 'session_required']);
    expect(JSON.stringify(byKey.body)).not.toContain(o.created.recovery_phrase);

    app.clock.advance(16 * 60_000); // the step-up (and the sign-in) older than 15 minutes
    const stale = await reveal(o);
    expect([stale.status, stale.body.error.code]).toEqual([403, 'step_up_required']);
    expect(JSON.stringify(stale.body)).not.toContain(o.created.recovery_phrase);
    expect((await o.b.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    expect((await reveal(o)).body.data.recovery_phrase).toBe(o.created.recovery_phrase);
  });

  it('creating, importing or connecting a wallet from a session needs a step-up within 15 minutes (where payments go, §5.6); an API key is never asked', async () => {
    const o = await owner(null);
    const key = await o.as.post('/api-keys', { type: 'secret', mode: 'test', name: 'Server' });
    expect(key.status).toBe(201);
    const connect = { type: 'external', evm_xpub: keysOfPhrase(generateMnemonic(english)).evmXpub };
    app.clock.advance(16 * 60_000); // the step-up (and the sign-in) older than 15 minutes
    const stale = await o.as.post('/wallet', connect);
    expect([stale.status, stale.body.error.code]).toEqual([403, 'step_up_required']);
    expect((await o.as.get('/wallet')).status).toBe(404); // nothing connected
    const byKey = await new Client(app.api, key.body.data.secret).call('POST', '/wallet', connect);
    expect(byKey.status).toBe(201);
    expect((await o.as.get('/wallet')).body.data.id).toBe(byKey.body.data.id);
  });

  it('an external wallet: 409 external_wallet; no wallet: 404 not_found', async () => {
    const external = await owner({ type: 'external', evm_xpub: keysOfPhrase(LEGAL).evmXpub });
    const refused = await reveal(external);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'external_wallet']);
    const none = await owner(null);
    const missing = await reveal(none);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
  });

  it("another business's person cannot: 403 business_forbidden (Service-Business), nothing recorded", async () => {
    const o = await owner({ type: 'created' });
    phrases.push(o.created.recovery_phrase);
    const stranger = await owner(null);
    const events = async () => (await app.api.app.get<EventStore>(EVENT_STORE).readStream(`wallet-${o.businessId}`)).filter((e) => e.type === 'WalletRecoveryPhraseRevealed').length;
    const before = await events();
    const refused = await stranger.b.post('/wallet/recovery-phrase', undefined, { 'service-business': o.businessId });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'business_forbidden']);
    expect(await events()).toBe(before);
  });

  it('each reveal is recorded on the wallet stream (who and when); the same Idempotency-Key twice is not a replay, and no phrase is kept', async () => {
    const o = await owner({ type: 'created' });
    const phrase: string = o.created.recovery_phrase;
    phrases.push(phrase);
    const first = await reveal(o, { 'idempotency-key': 'reveal-1' });
    const second = await reveal(o, { 'idempotency-key': 'reveal-1' });
    for (const answer of [first, second]) {
      expect([answer.status, answer.body.data.recovery_phrase]).toEqual([200, phrase]);
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
    }
    // the store holds nothing under that key: the next request with it would run afresh
    const store = app.api.app.get<IdempotencyStore>(IDEMPOTENCY_STORE);
    const claim = await store.begin(`biz:${o.businessId}`, 'reveal-1', fingerprint('POST', '/api/v1/wallet/recovery-phrase', 'null'));
    expect(claim.state).toBe('started');
    if (claim.state === 'started') await store.release(`biz:${o.businessId}`, 'reveal-1', claim.token);

    const revealed = (await app.api.app.get<EventStore>(EVENT_STORE).readStream(`wallet-${o.businessId}`)).filter((e) => e.type === 'WalletRecoveryPhraseRevealed');
    expect(revealed).toHaveLength(2);
    for (const event of revealed) {
      expect(event.data).toEqual({ wallet_id: o.created.id, business_id: o.businessId, account_id: o.accountId, revealed_at: expect.any(String) });
    }
  });

  it('no phrase reaches a log line or the log of events', async () => {
    expect(phrases.length).toBeGreaterThanOrEqual(5);
    const events = JSON.stringify((await app.api.app.get<EventStore>(EVENT_STORE).readAll({ maxCount: 100_000 })).map((e) => [e.type, e.data, e.metadata]));
    expect(events).toContain('WalletRecoveryPhraseRevealed');
    expect(logs.join('')).toContain('recovery-phrase'); // the requests were logged
    for (const phrase of phrases) {
      expect(logs.join('')).not.toContain(phrase);
      expect(events).not.toContain(phrase);
      expect(events).not.toContain(phrase.split(' ').slice(0, 4).join(' '));
    }
  });
});
