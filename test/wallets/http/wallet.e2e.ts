import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { bitcoinAddress, evmAddress, keysOfPhrase, phraseSeed, solanaAddress } from '@lib/wallets';
import { appPerSuite, businessWithKey, clientWithNewKey, startApp } from '../../support/fixtures';
import { eventually } from '../../support/eventually';
import { TickerServer, startTickerServer } from '../../rates/ticker-server';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** Another valid phrase (BIP-39 vector "legal winner … title"). */
const LEGAL = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

/**
 * Live businesses are offered only the networks a chain watcher watches: nodes are configured for
 * all but Base here. Nothing listens at them (these tests are about wallets, not watching): the
 * watchers back off in the background.
 */
const NODES = {
  // a provider-style URL with its key in the user part, the path and the query: none of it may be shown or logged
  EVM_RPC_URL_ETHEREUM: 'http://user:s3cret-user@127.0.0.1:9/v3/s3cret-path?key=s3cret-query',
  EVM_RPC_URL_POLYGON: 'http://127.0.0.1:9',
  EVM_RPC_URL_ARBITRUM: 'http://127.0.0.1:9',
  SOLANA_RPC_URL: 'http://127.0.0.1:9',
  BITCOIN_ESPLORA_URL: 'http://127.0.0.1:9',
};

describe('the business wallet over HTTP (POST /wallet, GET /wallet, fresh addresses per checkout)', () => {
  let ticker: TickerServer;
  const suite = appPerSuite(
    async () => {
      // live businesses quote BTC, SOL and USDT from the live source: a local one with fresh prices
      ticker = await startTickerServer();
      for (const [product, price] of [['BTC-USD', '60000.00'], ['SOL-USD', '150.00'], ['USDT-USD', '1.0001']]) ticker.set(product, { kind: 'price', price });
      const api = await startApp('embedded', { TRUSTED_PROXIES: 'loopback', RATES_URL: ticker.url, ...NODES });
      return { ...api, close: async () => (await api.close(), await ticker.close()) };
    },
    async (api) => ({
      simulated: await businessWithKey(api, true),
      live: await businessWithKey(api, false, 'Live Shop'),
      other: await businessWithKey(api, false, 'Other Shop'),
      third: await businessWithKey(api, false, 'Third Shop'),
    }),
  );

  it('a simulated business has a wallet created in the service from the start (issue 19 A4): every network receives', async () => {
    const wallet = (await suite.simulated.client.get('/wallet')).body.data;
    expect(wallet).toMatchObject({ kind: 'wallet', type: 'created', pending_change: null, addresses: { total: 0, recent: [] } });
    expect(wallet.id).toMatch(/^wal_/);
    expect(wallet.networks.every((n: { receiving: boolean }) => n.receiving)).toBe(true);
    expect(wallet).not.toHaveProperty('recovery_phrase');
    const again = await suite.simulated.client.post('/wallet', {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('wallet_exists');
  });

  it('a live business has none (404, and 409 not_accepting on checkouts); POST /wallet creates one and shows its phrase once (Cache-Control: no-store); each checkout gets a fresh address derived from it', async () => {
    const shop = suite.live.client;
    expect((await shop.get('/wallet')).status).toBe(404);
    const payment = await shop.createPayment();
    const refused = await shop.postOnce('/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'USDC', network: 'ethereum' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'not_accepting', field: 'network' });

    const created = await shop.post('/wallet', { type: 'created' });
    expect(created.status).toBe(201);
    const phrase: string = created.body.data.recovery_phrase;
    expect(phrase.split(' ')).toHaveLength(24);
    expect(created.headers.get('cache-control')).toBe('no-store'); // a secret shown once: no cache keeps it (audit F6)
    const wallet = (await shop.get('/wallet')).body.data;
    expect(wallet).not.toHaveProperty('recovery_phrase');
    expect(JSON.stringify(wallet)).not.toContain(phrase.split(' ').slice(0, 4).join(' '));
    const keys = keysOfPhrase(phrase);
    expect(wallet.keys).toEqual({ evm_xpub: keys.evmXpub, bitcoin_xpub: keys.bitcoinXpub, solana_address: null, solana_derived: true });
    // where it receives: the networks this service has a node for, not Base (no EVM_RPC_URL_BASE here), whose
    // checkouts answer 409 not_accepting with the same words (new-user audit, 2026-11-29: every network said receiving)
    const receiving = (networks: { network: string; receiving: boolean; reason: string | null }[]) => Object.fromEntries(networks.map((n) => [n.network, n.receiving ? true : n.reason]));
    const notWatched = 'This service does not watch base yet: live payments are not taken there.';
    expect(receiving(wallet.networks)).toEqual({ ethereum: true, polygon: true, base: notWatched, arbitrum: true, solana: true, bitcoin: true });
    expect(receiving(created.body.data.networks)).toEqual(receiving(wallet.networks)); // POST /wallet answers the same object
    const onBase = await shop.postOnce('/checkouts', { payment_code: (await shop.createPayment()).url.split('/').pop(), asset: 'USDC', network: 'base' });
    expect({ status: onBase.status, error: onBase.body.error }).toMatchObject({ status: 409, error: { code: 'not_accepting', message: notWatched } });

    // two EVM checkouts, one Bitcoin, one Solana: indexes 0 and 1 of the EVM account, 0 of the others
    const first = await shop.openCheckout(await shop.createPayment());
    const second = await shop.openCheckout(await shop.createPayment(), { asset: 'USDC', network: 'polygon' });
    const btc = await shop.openCheckout(await shop.createPayment(), { asset: 'BTC', network: 'bitcoin' });
    const sol = await shop.openCheckout(await shop.createPayment(), { asset: 'SOL', network: 'solana' });
    expect(first.crypto.address).toBe(evmAddress(keys.evmXpub, 0));
    expect(second.crypto.address).toBe(evmAddress(keys.evmXpub, 1));
    expect(btc.crypto.address).toBe(bitcoinAddress(keys.bitcoinXpub, 0));
    expect(sol.crypto.address).toBe(solanaAddress(phraseSeed(phrase), 0));

    const after = (await shop.get('/wallet')).body.data;
    expect(after.addresses.total).toBe(4);
    expect(after.addresses.recent.map((a: { checkout_id: string }) => a.checkout_id).sort()).toEqual([first.id, second.id, btc.id, sol.id].sort());
    expect(after.addresses.recent.find((a: { checkout_id: string }) => a.checkout_id === second.id)).toMatchObject({ address: second.crypto.address, network: 'polygon', index: 1 });
  });

  it('the phrase is sealed at rest: no event, no projection row and no other table holds it', async () => {
    const created = await suite.third.client.post('/wallet', { type: 'imported', recovery_phrase: LEGAL });
    expect(created.status).toBe(201);
    expect(created.body.data.recovery_phrase).toBeNull();
    const store = suite.api.app.get<EventStore>(EVENT_STORE);
    const log = JSON.stringify((await store.readAll()).map((e) => [e.stream, e.type, e.data, e.metadata]));
    expect(log).toContain(created.body.data.id); // the wallet's events are there…
    expect(log).not.toContain('legal winner'); // …without the phrase
    const db = suite.api.app.get<Sql>(DATABASE);
    const tables = await db.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`,
    );
    expect(tables.rows.length).toBeGreaterThan(5);
    for (const table of tables.rows) {
      const dump = await db.query<{ text: string | null }>(`SELECT string_agg(t::text, ' ') AS text FROM "${table.schema}"."${table.name}" t`);
      expect({ table: table.name, holds: (dump.rows[0].text ?? '').includes('legal winner') }).toEqual({ table: table.name, holds: false });
    }
    const { rows } = await db.query<{ ciphertext: Uint8Array; kek_id: string }>(`SELECT ciphertext, kek_id FROM wallet_secrets WHERE wallet_id = $1`, [created.body.data.id]);
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0].ciphertext).toString('utf8')).not.toContain('legal');
  });

  it('an imported phrase receives at its own addresses; the same phrase or its public keys are refused to any other wallet (400 invalid_request)', async () => {
    const other = suite.other.client;
    const imported = await other.post('/wallet', { type: 'imported', recovery_phrase: ABANDON });
    expect(imported.status).toBe(201);
    const checkout = await other.openCheckout(await other.createPayment());
    expect(checkout.crypto.address).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');

    const newcomer = await businessWithKey(suite.api, false, 'Newcomer');
    const samePhrase = await newcomer.client.post('/wallet', { type: 'imported', recovery_phrase: ABANDON.toUpperCase() });
    expect(samePhrase.status).toBe(400);
    expect(samePhrase.body.error).toMatchObject({ code: 'invalid_request', field: 'recovery_phrase' });
    const sameXpub = await newcomer.client.post('/wallet', { type: 'external', evm_xpub: keysOfPhrase(ABANDON).evmXpub });
    expect(sameXpub.body.error).toMatchObject({ code: 'invalid_request', field: 'evm_xpub' });
    const sameZpub = await newcomer.client.post('/wallet', { type: 'external', bitcoin_xpub: keysOfPhrase(ABANDON).bitcoinXpub });
    expect(sameZpub.body.error).toMatchObject({ code: 'invalid_request', field: 'bitcoin_xpub' });
    expect((await newcomer.client.get('/wallet')).status).toBe(404); // nothing was created
  });

  it('an external wallet receives on EVM (and Bitcoin) from its xpubs, never on Solana with one address (issue 19 A5)', async () => {
    const shop = await businessWithKey(suite.api, false, 'External Shop');
    const keys = keysOfPhrase('zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong');
    const created = await shop.client.post('/wallet', { type: 'external', evm_xpub: keys.evmXpub, solana_address: keys.solanaAddress0 });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ type: 'external', recovery_phrase: null, keys: { evm_xpub: keys.evmXpub, bitcoin_xpub: null, solana_address: keys.solanaAddress0, solana_derived: false } });
    const solana = created.body.data.networks.find((n: { network: string }) => n.network === 'solana');
    expect(solana).toMatchObject({ receiving: false });
    expect(solana.reason).toMatch(/fresh address/);

    const evm = await shop.client.openCheckout(await shop.client.createPayment(), { asset: 'USDT', network: 'arbitrum' });
    expect(evm.crypto.address).toBe(evmAddress(keys.evmXpub, 0));
    for (const [asset, network] of [['SOL', 'solana'], ['BTC', 'bitcoin'], ['USDC', 'base']]) {
      const payment = await shop.client.createPayment();
      const refused = await shop.client.postOnce('/checkouts', { payment_code: payment.url.split('/').pop(), asset, network });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('not_accepting');
      expect(refused.body.error.message).toMatch(network === 'base' ? /does not watch base/ : /cannot receive/);
    }
  });

  it("a watched network whose node cannot be reached: the watcher backs off and /health says why", async () => {
    const health = await eventually(
      () => suite.simulated.client.as(null).get('/health').then((r) => r.body.data),
      (h) => h.chains.length === 5 && h.chains.every((c: { last_error: string | null; backing_off_until: string | null }) => c.last_error !== null && c.backing_off_until !== null),
      { what: 'every watcher backing off' },
    );
    expect(health.chains.map((c: { network: string }) => c.network).sort()).toEqual(['arbitrum', 'bitcoin', 'ethereum', 'polygon', 'solana']);
    expect(JSON.stringify(health)).not.toMatch(/s3cret/);
    expect(health.chains.find((c: { network: string }) => c.network === 'ethereum').last_error).toMatch(/HTTP request failed/);
  });

  it('every body is checked: the type, fields of another type, the phrase, each xpub, the Solana address — 400 naming the field, nothing created', async () => {
    const shop = await businessWithKey(suite.api, false, 'Careful Shop');
    const cases: [unknown, string][] = [
      [{ type: 'custodial' }, 'type'],
      [{ type: 'created', evm_xpub: keysOfPhrase(LEGAL).evmXpub }, 'evm_xpub'],
      [{ type: 'imported' }, 'recovery_phrase'],
      [{ type: 'imported', recovery_phrase: 'abandon abandon abandon' }, 'recovery_phrase'],
      [{ type: 'imported', recovery_phrase: ABANDON, bitcoin_xpub: 'zpub' }, 'bitcoin_xpub'],
      [{ type: 'external' }, 'evm_xpub'],
      [{ type: 'external', evm_xpub: 'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8' }, 'evm_xpub'], // a master key, not an account key
      [{ type: 'external', bitcoin_xpub: 'not-a-key' }, 'bitcoin_xpub'],
      [{ type: 'external', solana_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94' }, 'solana_address'],
      [{ type: 'external', recovery_phrase: ABANDON }, 'recovery_phrase'],
      [{ type: 7 }, 'type'],
      [{ evm_xpub: null, type: 'external' }, 'evm_xpub'],
    ];
    for (const [body, field] of cases) {
      const answer = await shop.client.post('/wallet', body);
      expect({ body, status: answer.status, code: answer.body.error?.code, field: answer.body.error?.field }).toEqual({ body, status: 400, code: 'invalid_request', field });
    }
    expect((await shop.client.get('/wallet')).status).toBe(404);
  });

  it('a restricted key needs wallet permissions; a test key of a live business cannot create one', async () => {
    const reader = await clientWithNewKey(suite.api, { businessId: suite.simulated.business.id, kind: 'restricted', mode: 'test', permissions: 'payments:read' });
    expect((await reader.get('/wallet')).status).toBe(403);
    const walletReader = await clientWithNewKey(suite.api, { businessId: suite.simulated.business.id, kind: 'restricted', mode: 'test', permissions: 'wallet:read' });
    expect((await walletReader.get('/wallet')).status).toBe(200);
    const shop = await businessWithKey(suite.api, false, 'Tested Shop');
    const testKey = await clientWithNewKey(suite.api, { businessId: shop.business.id, kind: 'secret', mode: 'test' });
    const answer = await testKey.post('/wallet', {});
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('test_mode_unavailable');
  });

  it('a remainder checkout reserves its own fresh address in the wallet; the settlement names the wallet', async () => {
    const shop = suite.simulated.client;
    const payment = await shop.createPayment();
    const checkout = await shop.openCheckout(payment);
    await shop.markSent(checkout.id, 'underpaid');
    await shop.advance(15 * 60 + 30);
    const remainder = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
    expect(remainder.status).toBe(201);
    const next = remainder.body.data.checkout;
    expect(next.crypto.address).not.toBe(checkout.crypto.address);
    const wallet = (await shop.get('/wallet')).body.data;
    const mine = wallet.addresses.recent.filter((a: { payment_id: string }) => a.payment_id === payment.id);
    expect(mine.map((a: { address: string }) => a.address).sort()).toEqual([checkout.crypto.address, next.crypto.address].sort());
    const settled = await eventually(() => shop.payment(payment.id), (p) => p.settlement !== null, { what: 'settlement' });
    expect(settled.settlement).toMatchObject({ wallet_id: wallet.id, address: checkout.crypto.address });
  });
});
