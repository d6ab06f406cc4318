import { randomBytes } from 'node:crypto';
import { mnemonicToSeedSync } from '@scure/bip39';
import { derivePath } from 'ed25519-hd-key';
import { base58Encode, loadSolanaWeb3 } from '@lib/chains';
import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { findProjector, verifyProjection } from '@lib/projections';
import { allProjectors } from '@lib/wiring';
import { eventually } from '../../support/eventually';
import { AccountsTestApp, Browser, signUp, startAccountsApp } from '../../accounts/support';
import { RECIPIENT, Shop, eth, ethTransfer, fundedAddress, send, signerOf, walletPhrase } from './support';

/**
 * The `wallet_transaction.confirmed` event of a send carries the wallet transaction as GET
 * /wallet/transactions/{id} returns it once confirmed (spec §6), over real HTTP on a simulated
 * business: the audit found `value_usd: null` in the events of ETH and SOL sends while the
 * endpoint showed 3000 and 1500 (stablecoin sends were right).
 */
describe('wallet_transaction.* events of a simulated business’s sends: data = the endpoint’s object', () => {
  let app: AccountsTestApp;
  let shop: Shop;
  let phrase: string;

  beforeAll(async () => {
    app = await startAccountsApp('embedded');
    const browser = new Browser(app.api);
    const { businessId } = await signUp(app, browser);
    shop = browser.forBusiness(businessId);
    const wallet = await shop.get('/wallet');
    expect([wallet.status, wallet.body.data.type]).toEqual([200, 'created']);
    phrase = await walletPhrase(app.api, wallet.body.data.id);
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Confirms the send on the business's clock; its confirmed object and the data of its one event. */
  async function confirmedAndEvent(id: string) {
    expect((await shop.post('/test_clock/advance', { seconds: 61 })).status).toBe(200);
    const confirmed = await eventually(() => shop.get(`/wallet/transactions/${id}`).then((r) => r.body.data), (t) => t.status === 'confirmed', { what: 'send confirmed' });
    const events = await eventually(() => shop.get(`/events?subject_id=${id}`).then((r) => r.body.data as { type: string; data: unknown }[]), (e) => e.length > 0, { what: 'wallet_transaction.confirmed event' });
    expect(events.map((e) => e.type)).toEqual(['wallet_transaction.confirmed']);
    return { confirmed, data: events[0].data };
  }

  it('an ETH send (0.01 ETH at 3000.00 USD): its value in its event as at GET /wallet/transactions/{id}', async () => {
    const funded = await fundedAddress(shop, 'ETH', 'ethereum');
    const signer = signerOf(phrase, funded.address);
    const created = await send(shop, { asset: 'ETH', network: 'ethereum', amount: '0.01', to_address: RECIPIENT, signed_transaction: await ethTransfer(signer, { value: eth('0.01'), nonce: 0 }) });
    expect([created.status, created.body.data?.value_usd]).toEqual([201, 3000]);
    const { confirmed, data } = await confirmedAndEvent(created.body.data.id);
    expect(confirmed.value_usd).toBe(3000);
    expect(data).toEqual(confirmed);
  });

  it('a SOL send (0.1 SOL at 150.00 USD): its value in its event as at GET /wallet/transactions/{id}', async () => {
    const funded = await fundedAddress(shop, 'SOL', 'solana');
    const web3 = await loadSolanaWeb3();
    const seed = Buffer.from(mnemonicToSeedSync(phrase)).toString('hex');
    let owner: InstanceType<typeof web3.Keypair> | undefined;
    for (let i = 0; i < 200 && !owner; i++) {
      const keypair = web3.Keypair.fromSeed(derivePath(`m/44'/501'/${i}'/0'`, seed).key);
      if (keypair.publicKey.toBase58() === funded.address) owner = keypair;
    }
    if (!owner) throw new Error(`${funded.address} is not among the wallet's first 200 Solana addresses`);
    const recipient = web3.Keypair.generate().publicKey.toBase58();
    const tx = new web3.Transaction().add(web3.SystemProgram.transfer({ fromPubkey: owner.publicKey, toPubkey: new web3.PublicKey(recipient), lamports: 100_000_000n }));
    tx.recentBlockhash = base58Encode(randomBytes(32));
    tx.feePayer = owner.publicKey;
    tx.sign(owner);
    const created = await send(shop, { asset: 'SOL', network: 'solana', amount: '0.1', to_address: recipient, signed_transaction: tx.serialize().toString('base64') });
    expect([created.status, created.body.data?.value_usd]).toEqual([201, 1500]);
    const { confirmed, data } = await confirmedAndEvent(created.body.data.id);
    expect(confirmed.value_usd).toBe(1500);
    expect(data).toEqual(confirmed);
  });

  it('the live run and a replay of the log agree: wallet_transactions (folded per batch) and events', async () => {
    const store = app.api.app.get<EventStore>(EVENT_STORE);
    const db = app.api.app.get<Database>(DATABASE);
    for (const name of ['wallet_transactions', 'events']) {
      const projector = findProjector(name, allProjectors({ checkoutBaseUrl: app.api.config.checkoutBaseUrl }));
      expect({ name, differences: (await verifyProjection(store, db, projector)).differences }).toEqual({ name, differences: [] });
    }
  });
});
