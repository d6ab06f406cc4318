import { randomUUID } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { generateMnemonic, english } from 'viem/accounts';
import { AnvilNode, Hex, startAnvil } from '../../support/anvil';
import { eventually } from '../../support/eventually';
import { TickerServer, startTickerServer } from '../../rates/ticker-server';
import { AccountsTestApp, Browser, signUp, startAccountsApp } from '../../accounts/support';
import { RECIPIENT, Shop, eth, ethTransfer, send, signerOf } from './support';

/**
 * Sends of a LIVE business relayed through a real node (decision 0040): anvil stands for Ethereum
 * (chain id 1), watched by the service (EVM_RPC_URL_ETHEREUM). The business imports a phrase, a
 * customer pays an ETH checkout with a real transfer (the funds the service tracks), then the
 * dashboard's signed sends are relayed with viem and confirmed by the receipt poll; a nonce the
 * node refuses is 409 transaction_rejected with nothing recorded; the node down is 503
 * network_unavailable, and the retry with the same key lands exactly once.
 */
describe('wallet sends of a live business relayed through anvil', () => {
  let ethereum: AnvilNode;
  let ticker: TickerServer;
  let app: AccountsTestApp;
  let shop: Shop;
  let signer: ReturnType<typeof signerOf>;
  let nonce = 0;
  const CUSTOMER = 1;

  beforeAll(async () => {
    ethereum = await startAnvil({ chainId: 1 });
    ticker = await startTickerServer();
    ticker.set('ETH-USD', { kind: 'price', price: '3000.00' });
    app = await startAccountsApp('embedded', { RATES_URL: ticker.url, EVM_RPC_URL_ETHEREUM: ethereum.url, CHAIN_POLL_MS: '100', QUOTE_TTL_SECONDS: '60' });
    const browser = new Browser(app.api);
    const { businessId } = await signUp(app, browser, undefined, 'Live Coffee', false);
    shop = browser.forBusiness(businessId);
    const phrase = generateMnemonic(english);
    const wallet = await shop.post('/wallet', { type: 'imported', recovery_phrase: phrase });
    expect(wallet.status).toBe(201);
    // a customer pays 30 USD in ETH (0.01 ETH) with a real transfer: the address's funds
    const payment = await shop.post('/payments', { amount: 3000, currency: 'USD', description: 'Beans' }, { 'idempotency-key': randomUUID() });
    expect(payment.status).toBe(201);
    const checkout = await shop.post('/checkouts', { payment_code: (payment.body.data.url as string).split('/').pop(), asset: 'ETH', network: 'ethereum' }, { 'idempotency-key': randomUUID() });
    expect([checkout.status, checkout.body.data?.crypto?.amount]).toEqual([201, '0.01']);
    const address = checkout.body.data.crypto.address as Hex;
    await ethereum.send(CUSTOMER, { to: address, value: eth('0.01') });
    await eventually(() => shop.get(`/checkouts/${checkout.body.data.id}`).then((r) => r.body.data), (c) => c.status !== 'open', { what: 'payment detected' });
    signer = signerOf(phrase, address);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await ethereum?.close();
    await ticker?.close();
  });

  const balance = (address: Hex) => ethereum.rpc<Hex>('eth_getBalance', [address, 'latest']).then(BigInt);

  it('relays a signed ETH send through the node and confirms it from its receipt', async () => {
    const before = await balance(RECIPIENT);
    const signed = await ethTransfer(signer, { value: eth('0.002'), nonce: nonce++ });
    const created = await send(shop, { asset: 'ETH', network: 'ethereum', amount: '0.002', to_address: RECIPIENT, speed: 'fast', signed_transaction: signed });
    expect([created.status, created.body.data?.status, created.body.data?.origin]).toEqual([201, 'pending', 'signed']);
    const receipt = await ethereum.receipt(created.body.data.tx_hash);
    expect(receipt.status).toBe('success');
    expect((await balance(RECIPIENT)) - before).toBe(eth('0.002'));
    const confirmed = await eventually(() => shop.get(`/wallet/transactions/${created.body.data.id}`).then((r) => r.body.data), (t) => t.status === 'confirmed', { what: 'send confirmed by its receipt' });
    expect(confirmed.confirmed_at).toEqual(expect.any(String));
    // the send context asks the node: the next nonce, fees from the latest base fee
    const context = await shop.get(`/wallet/send-context?network=ethereum&asset=ETH&from=${signer.address}`);
    expect(context.status).toBe(200);
    expect(context.body.data).toMatchObject({ chain_id: 1, nonce: 1, fees: { standard: { max_fee_per_gas: expect.stringMatching(/^\d+$/) } } });
  });

  it('answers 409 transaction_rejected for a nonce the node refuses, and records nothing', async () => {
    const stale = await ethTransfer(signer, { value: eth('0.001'), nonce: 0, maxFeePerGas: 3_000_000_000n });
    const refused = await send(shop, { asset: 'ETH', network: 'ethereum', amount: '0.001', to_address: RECIPIENT, signed_transaction: stale });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'transaction_rejected']);
    const list = await shop.get('/wallet/transactions');
    expect(list.body.data.map((t: { tx_hash: string }) => t.tx_hash)).not.toContain(refused.body.error.tx_hash);
    expect(list.body.data).toHaveLength(1);
  });

  it('answers 503 network_unavailable while the node is down; the retry with the same key relays the same bytes and lands once', async () => {
    const before = await balance(RECIPIENT);
    const signed = await ethTransfer(signer, { value: eth('0.001'), nonce: nonce++ });
    const key = randomUUID();
    const body = { asset: 'ETH', network: 'ethereum', amount: '0.001', to_address: RECIPIENT, signed_transaction: signed };
    await ethereum.stop();
    try {
      const down = await send(shop, body, key);
      expect([down.status, down.body.error.code]).toEqual([503, 'network_unavailable']);
    } finally {
      await ethereum.start();
    }
    const retried = await send(shop, body, key);
    expect([retried.status, retried.body.data?.status]).toEqual([201, 'pending']);
    const again = await send(shop, body, key);
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.data.id]).toEqual([201, 'true', retried.body.data.id]);
    await eventually(() => shop.get(`/wallet/transactions/${retried.body.data.id}`).then((r) => r.body.data), (t) => t.status === 'confirmed', { what: 'retried send confirmed' });
    expect((await balance(RECIPIENT)) - before).toBe(eth('0.001'));
    const list = await shop.get('/wallet/transactions');
    expect(list.body.data.filter((t: { tx_hash: string }) => t.tx_hash === retried.body.data.tx_hash)).toHaveLength(1);
  });

  it('external records: an unverified record by hash (no hold, fee zero) matched against the chain — confirmed when it matches, failed on another amount; a signed_transaction is refused', async () => {
    // a second live business connecting the same kind of phrase as an external wallet (its xpub only)
    const browser = new Browser(app.api);
    const { businessId } = await signUp(app, browser, undefined, 'Outside Wallet', false);
    const outside = browser.forBusiness(businessId);
    const phrase = generateMnemonic(english);
    const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(phrase)).derive("m/44'/60'/0'").publicExtendedKey;
    expect((await outside.post('/wallet', { type: 'external', evm_xpub: xpub })).status).toBe(201);
    const payment = await outside.post('/payments', { amount: 3000, currency: 'USD', description: 'Tea' }, { 'idempotency-key': randomUUID() });
    const checkout = await outside.post('/checkouts', { payment_code: (payment.body.data.url as string).split('/').pop(), asset: 'ETH', network: 'ethereum' }, { 'idempotency-key': randomUUID() });
    expect(checkout.status).toBe(201);
    const address = checkout.body.data.crypto.address as Hex;
    await ethereum.send(CUSTOMER, { to: address, value: eth('0.01') });
    const owner = signerOf(phrase, address);
    // the business sends from its own app, then records the hash
    const sent = await ethereum.sendRaw(await ethTransfer(owner, { value: eth('0.003'), nonce: 0 }));
    await ethereum.receipt(sent);
    const signedRefused = await send(outside, { asset: 'ETH', network: 'ethereum', amount: '0.003', to_address: RECIPIENT, signed_transaction: await ethTransfer(owner, { value: eth('0.003'), nonce: 1 }) });
    expect([signedRefused.status, signedRefused.body.error.code, signedRefused.body.error.field]).toEqual([400, 'invalid_request', 'signed_transaction']);
    const recorded = await send(outside, { asset: 'ETH', network: 'ethereum', amount: '0.003', to_address: RECIPIENT, tx_hash: sent.toUpperCase().replace('0X', '0x') });
    expect(recorded.status).toBe(201);
    expect(recorded.body.data).toMatchObject({ status: 'pending', origin: 'external', tx_hash: sent.toLowerCase(), from_address: null, value_usd: 0, network_fee_usd: 0 });
    const confirmed = await eventually(() => outside.get(`/wallet/transactions/${recorded.body.data.id}`).then((r) => r.body.data), (t) => t.status !== 'pending', { what: 'external record matched' });
    expect([confirmed.status, confirmed.network_fee_usd]).toEqual(['confirmed', 0]);
    // another chain transaction recorded with the wrong amount fails the record
    const other = await ethereum.sendRaw(await ethTransfer(owner, { value: eth('0.001'), nonce: 1 }));
    await ethereum.receipt(other);
    const wrong = await send(outside, { asset: 'ETH', network: 'ethereum', amount: '0.002', to_address: RECIPIENT, tx_hash: other });
    expect(wrong.status).toBe(201);
    const failed = await eventually(() => outside.get(`/wallet/transactions/${wrong.body.data.id}`).then((r) => r.body.data), (t) => t.status !== 'pending', { what: 'external record mismatched' });
    expect([failed.status, failed.failure_reason]).toEqual(['failed', 'The transaction pays another amount than the record.']);
  });
});
