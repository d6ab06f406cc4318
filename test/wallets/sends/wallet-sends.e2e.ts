import { randomBytes, randomUUID } from 'node:crypto';
import { encodeFunctionData, erc20Abi, keccak256, parseUnits, type Hex } from 'viem';
import { defaultRegistry } from '@lib/chains';
import { base58 } from '@scure/base';
import { english, generateMnemonic, mnemonicToAccount } from 'viem/accounts';
import { OWN_ADDRESS_GAP, SIMULATED_SEND_SETTLE_MS, WalletAddresses, bitcoinAddress, evmAddress, keysOfPhrase, phraseSeed, solanaAddress } from '@lib/wallets';
import { eventually } from '../../support/eventually';
import { businessWithKey } from '../../support/client';
import { AccountsTestApp, Browser, signUp, startAccountsApp, steppedUpOwner } from '../../accounts/support';
import { RECIPIENT, Shop, eth, ethTransfer, fundedAddress, send, signerOf, walletPhrase } from './support';

/**
 * POST /wallet/transactions and its reads over real HTTP with a dashboard session (decision 0040):
 * a simulated business (its wallet created at sign-up), funded by a simulated payment on its test
 * clock; signed ETH sends checked with viem, held against the address's funds, confirmed on the
 * durable timer; refusals; isolation; API keys refused.
 */
describe('wallet sends of a simulated business over HTTP (sessions)', () => {
  let app: AccountsTestApp;
  let shop: Shop;
  let businessId: string;
  let signer: ReturnType<typeof signerOf>;
  let funded: { address: string; amount: string };
  let nonce = 0;

  beforeAll(async () => {
    app = await startAccountsApp('embedded');
    const browser = new Browser(app.api);
    ({ businessId } = await signUp(app, browser));
    shop = browser.forBusiness(businessId);
    const wallet = await shop.get('/wallet');
    expect([wallet.status, wallet.body.data.type]).toEqual([200, 'created']);
    funded = await fundedAddress(shop);
    signer = signerOf(await walletPhrase(app.api, wallet.body.data.id), funded.address);
  });
  afterAll(async () => {
    await app?.close();
  });

  const signedEth = (amount: string, more: Partial<Parameters<typeof ethTransfer>[1]> = {}) => ethTransfer(signer, { value: eth(amount), nonce: nonce++, ...more });

  it('records a signed ETH send: 201 pending, lower-case hash, explorer link; GET and the list show it; a replay of the key answers the same; the same transaction again is 409 duplicate_transaction', async () => {
    const signed = await signedEth('0.001');
    const key = randomUUID();
    const body = { asset: 'ETH', network: 'ethereum', amount: '0.001', to_address: RECIPIENT, note: 'Rent', signed_transaction: signed };
    const clock = await shop.get('/test_clock'); // the business's clock runs ahead of wall time (its funding advanced it)
    expect([clock.status, clock.body.data.offset_seconds >= 30]).toEqual([200, true]);
    const created = await send(shop, body, key);
    expect(created.status).toBe(201);
    // recorded in the business's own time (decision 0010), as its confirmation and its payments: not wall time
    const sentAt = Date.parse(created.body.data.created_at);
    expect({ after: sentAt >= Date.parse(clock.body.data.now), before: sentAt <= Date.parse((await shop.get('/test_clock')).body.data.now) }).toEqual({ after: true, before: true });
    const hash = keccak256(signed as Hex).toLowerCase();
    expect(created.body.data).toEqual({
      kind: 'wallet_transaction',
      id: expect.stringMatching(/^wtx_/),
      direction: 'out',
      status: 'pending',
      origin: 'signed',
      asset: 'ETH',
      network: 'ethereum',
      amount: '0.001',
      value_usd: 300, // 0.001 ETH at the fixed table's 3000.00 USD (simulated businesses' rates)
      network_fee_usd: 13, // the fee the transaction sets: 21 000 gas × 2 gwei = 0.000042 ETH at 3000.00 USD = 12.6 cents, half up
      address: signer.address,
      from_address: signer.address,
      to_address: RECIPIENT,
      tx_hash: hash,
      explorer_url: `https://etherscan.io/tx/${hash}`,
      payment_id: null,
      speed: 'standard',
      note: 'Rent',
      failure_reason: null,
      created_at: expect.any(String),
      confirmed_at: null,
      failed_at: null,
    });
    const id = created.body.data.id;
    const read = await shop.get(`/wallet/transactions/${id}`);
    expect([read.status, read.body.data]).toEqual([200, created.body.data]);
    const replay = await send(shop, body, key);
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.data.id]).toEqual([201, 'true', id]);
    const again = await send(shop, body);
    // the field names the input the client sent: a signed send has no tx_hash (audit F2, 2026-11-29)
    expect([again.status, again.body.error.code, again.body.error.field]).toEqual([409, 'duplicate_transaction', 'signed_transaction']);
    const list = await shop.get('/wallet/transactions?limit=1');
    expect([list.status, list.body.data.map((t: { id: string }) => t.id)]).toEqual([200, [id]]);

    // the simulated business broadcasts nothing: its send confirms on the durable timer of its test clock
    expect((await shop.post('/test_clock/advance', { seconds: 61 })).status).toBe(200);
    const confirmed = await eventually(() => shop.get(`/wallet/transactions/${id}`).then((r) => r.body.data), (t) => t.status === 'confirmed', { what: 'simulated send confirmed' });
    expect(confirmed.confirmed_at).toEqual(expect.any(String));
    // confirmed the settle delay after it was recorded, both in the business's time
    expect([confirmed.created_at, Date.parse(confirmed.confirmed_at) - sentAt]).toEqual([created.body.data.created_at, SIMULATED_SEND_SETTLE_MS]);
    // no chain charged it: the fee the signed transaction set stays
    expect([confirmed.value_usd, confirmed.network_fee_usd]).toEqual([300, 13]);
    // and the API event for webhooks
    const events = await eventually(() => shop.get(`/events?subject_id=${id}`).then((r) => r.body.data as { type: string; data: { id: string; status: string } }[]), (e) => e.length > 0, { what: 'wallet_transaction.confirmed event' });
    expect(events.map((e) => [e.type, e.data.id, e.data.status])).toEqual([['wallet_transaction.confirmed', id, 'confirmed']]);
    const pending = await shop.get('/wallet/transactions?status=pending');
    expect(pending.body.data.map((t: { id: string }) => t.id)).not.toContain(id);
  });

  it('refuses what does not match: tampered amount, recipient, chain id (400 invalid_request naming signed_transaction); the other wallet kind’s field; a network without signing; decimals past the coin; a long note', async () => {
    const base = { asset: 'ETH', network: 'ethereum', to_address: RECIPIENT };
    const refused = async (body: Record<string, unknown>, code: string, field: string) => {
      const answer = await send(shop, { ...base, ...body });
      expect([answer.status, answer.body.error.code, answer.body.error.field]).toEqual([code === 'invalid_address' || code === 'invalid_request' ? 400 : 409, code, field]);
    };
    await refused({ amount: '0.001', signed_transaction: await signedEth('0.002') }, 'invalid_request', 'signed_transaction');
    await refused({ amount: '0.001', signed_transaction: await signedEth('0.001', { to: '0x2222222222222222222222222222222222222222' }) }, 'invalid_request', 'signed_transaction');
    await refused({ amount: '0.001', signed_transaction: await signedEth('0.001', { chainId: 137 }) }, 'invalid_request', 'signed_transaction');
    await refused({ amount: '0.001', tx_hash: `0x${'ab'.repeat(32)}` }, 'invalid_request', 'tx_hash');
    await refused({ amount: '0.001', network: 'base', signed_transaction: await signedEth('0.001', { chainId: 8453 }) }, 'invalid_request', 'network');
    await refused({ amount: '0.0000000000000000001', signed_transaction: await signedEth('0.001') }, 'invalid_request', 'amount');
    await refused({ amount: '0.001', note: 'x'.repeat(281), signed_transaction: await signedEth('0.001') }, 'invalid_request', 'note');
    await refused({ amount: '0.001', signed_transaction: 'not hex' }, 'invalid_request', 'signed_transaction');
    await refused({ amount: '0.001', speed: 'warp', signed_transaction: await signedEth('0.001') }, 'invalid_request', 'speed');
    await refused({ amount: '0.001' }, 'invalid_request', 'signed_transaction');
    // addresses: invalid for the network, or the wallet's own
    await refused({ amount: '0.001', to_address: '0x1234', signed_transaction: await signedEth('0.001') }, 'invalid_address', 'to_address');
    await refused({ amount: '0.001', to_address: funded.address, signed_transaction: await signedEth('0.001', { to: funded.address as Hex }) }, 'invalid_address', 'to_address');
    // the Idempotency-Key is required
    const keyless = await shop.post('/wallet/transactions', { ...base, amount: '0.001', signed_transaction: await signedEth('0.001') });
    expect([keyless.status, keyless.body.error.code]).toEqual([400, 'idempotency_key_required']);
  });

  it('holds funds per address: more than it received is 409 insufficient_funds; the amount but not the greatest fee is 409 insufficient_fee_funds', async () => {
    const received = eth(funded.amount);
    const over = await send(shop, { asset: 'ETH', network: 'ethereum', amount: '1000', to_address: RECIPIENT, signed_transaction: await signedEth('1000') });
    expect([over.status, over.body.error.code]).toEqual([409, 'insufficient_funds']);
    // everything left after the first test's send, with a fee that cannot be paid
    const left = received - eth('0.001') - 21_000n * 2_000_000_000n;
    const wei = left.toString();
    const amount = `${wei.slice(0, -18) || '0'}.${wei.slice(-18).padStart(18, '0')}`.replace(/\.?0+$/, '');
    const noFee = await send(shop, { asset: 'ETH', network: 'ethereum', amount, to_address: RECIPIENT, signed_transaction: await ethTransfer(signer, { value: left, nonce: nonce++ }) });
    expect([noFee.status, noFee.body.error.code]).toEqual([409, 'insufficient_fee_funds']);
  });

  it('never holds more than an address received under 16 concurrent sends (one stream per wallet: conflicting sends are decided again)', async () => {
    const list = async () => (await shop.get('/wallet/transactions?limit=100')).body.data as { amount: string; status: string }[];
    const before = await list();
    const received = eth(funded.amount);
    const share = received / 8n; // 16 sends of an eighth: at most 7 more fit beside the earlier send and fees
    const signed = await Promise.all(Array.from({ length: 16 }, () => ethTransfer(signer, { value: share, nonce: nonce++ })));
    const wei = share.toString();
    const amount = `${wei.slice(0, -18) || '0'}.${wei.slice(-18).padStart(18, '0')}`.replace(/0+$/, '').replace(/\.$/, '');
    const answers = await Promise.all(signed.map((s) => send(shop, { asset: 'ETH', network: 'ethereum', amount, to_address: RECIPIENT, signed_transaction: s })));
    const ok = answers.filter((a) => a.status === 201);
    for (const a of answers.filter((x) => x.status !== 201)) expect([a.status, ['insufficient_funds', 'insufficient_fee_funds']]).toEqual([409, expect.arrayContaining([a.body.error.code])]);
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.length).toBeLessThan(8);
    const held = [...before, ...ok.map((a) => a.body.data)].filter((t) => t.status !== 'failed').reduce((total, t) => total + eth(t.amount) + 21_000n * 2_000_000_000n, 0n);
    expect(held <= received).toBe(true);
  });

  it('keeps each business to its own: another business’s wallet transaction is 404; a business without a wallet is 404 not_found; API keys get 403 session_required', async () => {
    const mine = (await shop.get('/wallet/transactions')).body.data[0].id as string;
    const other = new Browser(app.api);
    const { businessId: otherId } = await signUp(app, other, undefined, 'Live Shop', false);
    const otherShop = other.forBusiness(otherId);
    const foreign = await otherShop.get(`/wallet/transactions/${mine}`);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    const none = await send(otherShop, { asset: 'ETH', network: 'ethereum', amount: '0.001', to_address: RECIPIENT, signed_transaction: await signedEth('0.001') });
    expect([none.status, none.body.error.code]).toEqual([404, 'not_found']);
    const keyed = await businessWithKey(app.api, true);
    const byKey = await keyed.client.post('/wallet/transactions', { asset: 'ETH', network: 'ethereum', amount: '0.001', to_address: RECIPIENT, tx_hash: `0x${'cd'.repeat(32)}` });
    expect([byKey.status, byKey.body.error.code]).toEqual([403, 'session_required']);
  });

  it('fuzz: malformed bodies on POST /wallet/transactions are 4xx envelopes, never a 5xx; the one signed transaction is recorded at most once', async () => {
    const before = (await shop.get('/wallet/transactions?limit=100')).body.data.length;
    const values: unknown[] = [null, true, 0, -1, 1e308, '', ' ', 'x'.repeat(20_001), '0x', '0x' + 'zz'.repeat(40), '0x' + '00'.repeat(200), 'AAAA', '====', '-1', '1e5', '0.0', '00.1', '１', '\u0000', '__proto__', [], {}, ['ETH'], { $gt: '' }];
    const base = { asset: 'ETH', network: 'ethereum', amount: '0.001', to_address: RECIPIENT, signed_transaction: await signedEth('0.001') };
    const problems: string[] = [];
    let created = 0;
    const fields = ['asset', 'network', 'amount', 'to_address', 'speed', 'note', 'signed_transaction', 'funding_transaction', 'tx_hash', '__proto__', 'constructor'];
    const cases: Record<string, unknown>[] = [];
    for (const field of fields) for (const value of values) cases.push({ ...base, [field]: value });
    for (const network of ['solana', 'bitcoin', 'polygon', 'base', 'tron']) for (const asset of ['SOL', 'BTC', 'USDC', 'ETH', 'DOGE']) cases.push({ ...base, network, asset, signed_transaction: 'AQ==' });
    cases.push({ ...base, network: 'solana', asset: 'SOL', to_address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk', signed_transaction: Buffer.alloc(300, 1).toString('base64') });
    for (let i = 0; i < cases.length; i += 16) {
      const answers = await Promise.all(cases.slice(i, i + 16).map((c) => send(shop, c).then((a) => [c, a] as const)));
      for (const [c, a] of answers) {
        if (a.status === 201) created++;
        else if (a.status < 400 || a.status >= 500 || typeof a.body?.error?.code !== 'string') problems.push(`${JSON.stringify(c).slice(0, 160)} → ${a.status} ${JSON.stringify(a.body).slice(0, 160)}`);
      }
    }
    expect(problems).toEqual([]);
    // a case that only adds an ignored field is the valid body: its transaction is recorded once, every other try is a duplicate
    expect(created).toBeLessThanOrEqual(1);
    expect((await shop.get('/wallet/transactions?limit=100')).body.data.length).toBe(before + created);
  });

  it('Polygon (fee coin POL, which the service does not track): USDC and USDT sends are held against what the address received — 409 insufficient_funds past it; the fee is priced at the fixed table’s POL (network_fee_usd an integer)', async () => {
    // a business of its own, so the ETH address's sends above stay as they are
    const browser = new Browser(app.api);
    const { businessId: polygonBusiness } = await signUp(app, browser);
    const polygonShop = browser.forBusiness(polygonBusiness);
    const wallet = await polygonShop.get('/wallet');
    const paid = await fundedAddress(polygonShop, 'USDC', 'polygon');
    const holder = signerOf(await walletPhrase(app.api, wallet.body.data.id), paid.address);
    let polygonNonce = 0;
    const tokenTransfer = (asset: 'USDC' | 'USDT', amount: string) =>
      holder.signTransaction({
        type: 'eip1559',
        chainId: 137,
        to: defaultRegistry.assetOn(asset, 'polygon').contract as Hex,
        value: 0n,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, parseUnits(amount, 6)] }),
        nonce: polygonNonce++,
        gas: 65_000n,
        maxFeePerGas: 1_000_000_000_000n, // 1 000 gwei (a congested Polygon): a fee worth whole cents
        maxPriorityFeePerGas: 30_000_000_000n,
      });
    const sendToken = async (asset: 'USDC' | 'USDT', amount: string) => send(polygonShop, { asset, network: 'polygon', amount, to_address: RECIPIENT, signed_transaction: await tokenTransfer(asset, amount) });
    const received = parseUnits(paid.amount, 6);
    const available = async (asset: string) => (await polygonShop.get(`/wallet/send-context?network=polygon&asset=${asset}&from=${paid.address}`)).body.data.available;

    expect(await available('USDC')).toEqual({ asset: paid.amount, fee_coin: null, fee_coin_asset: null });
    const first = await sendToken('USDC', '1.5');
    // the fee the transaction sets: 65 000 gas × 1 000 gwei = 0.065 POL at the fixed table's 0.50 USD = 3.25 cents, half up
    // (audit F3, 2026-11-29: it was null, POL having no price)
    expect([first.status, first.body.data?.value_usd, first.body.data?.network_fee_usd]).toEqual([201, 150, 3]);
    const tooMuch = await sendToken('USDC', '1000');
    expect([tooMuch.status, tooMuch.body.error?.code, tooMuch.body.error?.field]).toEqual([409, 'insufficient_funds', 'amount']);
    // what is left, to the unit: one unit more is refused, exactly that much is taken
    const leftUnits = received - 1_500_000n;
    const left = (leftUnits / 1_000_000n).toString() + '.' + (leftUnits % 1_000_000n).toString().padStart(6, '0');
    const overByOne = (leftUnits + 1n) / 1_000_000n + '.' + ((leftUnits + 1n) % 1_000_000n).toString().padStart(6, '0');
    const oneUnitOver = await sendToken('USDC', overByOne);
    expect([oneUnitOver.status, oneUnitOver.body.error?.code]).toEqual([409, 'insufficient_funds']);
    const rest = await sendToken('USDC', left);
    expect(rest.status).toBe(201);
    expect(await available('USDC')).toEqual({ asset: '0', fee_coin: null, fee_coin_asset: null });
    const more = await sendToken('USDC', '1');
    expect([more.status, more.body.error?.code]).toEqual([409, 'insufficient_funds']);
    // no USDT ever reached this address
    expect((await available('USDT')).asset).toBe('0');
    const usdt = await sendToken('USDT', '500');
    expect([usdt.status, usdt.body.error?.code, usdt.body.error?.field]).toEqual([409, 'insufficient_funds', 'amount']);

    // confirmed on the business's clock: nothing charged on a chain, the fee taken at 201 stays (as for ETH)
    expect((await polygonShop.post('/test_clock/advance', { seconds: 61 })).status).toBe(200);
    for (const id of [first.body.data.id, rest.body.data.id]) {
      const confirmed = await eventually(() => polygonShop.get(`/wallet/transactions/${id}`).then((r) => r.body.data), (t) => t.status === 'confirmed', { what: 'polygon send confirmed' });
      expect(confirmed.network_fee_usd).toBe(3);
    }
    const list = (await polygonShop.get('/wallet/transactions?limit=100')).body.data as { amount: string }[];
    expect(list.reduce((total, t) => total + parseUnits(t.amount, 6), 0n)).toBe(received);
  });

  it('a funding transaction is a wallet transaction of its own: recorded with its send (the funder’s coin held, its nonce counted), confirmed on the same timer', async () => {
    // a business of its own, so the ETH address's sends above stay as they are
    const browser = new Browser(app.api);
    const { businessId: fundingBusiness } = await signUp(app, browser);
    const fundingShop = browser.forBusiness(fundingBusiness);
    const phrase = await walletPhrase(app.api, (await fundingShop.get('/wallet')).body.data.id);
    const coin = await fundedAddress(fundingShop);
    const tokens = await fundedAddress(fundingShop, 'USDC', 'ethereum');
    const funder = signerOf(phrase, coin.address);
    const holder = signerOf(phrase, tokens.address);
    const transfer = await holder.signTransaction({
      type: 'eip1559',
      chainId: 1,
      to: defaultRegistry.assetOn('USDC', 'ethereum').contract as Hex,
      value: 0n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 10_000_000n] }),
      nonce: 0,
      gas: 65_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    const funding = await ethTransfer(funder, { to: holder.address, value: eth('0.001'), nonce: 0 });
    const created = await send(fundingShop, { asset: 'USDC', network: 'ethereum', amount: '10', to_address: RECIPIENT, signed_transaction: transfer, funding_transaction: funding });
    expect([created.status, created.body.data?.from_address]).toEqual([201, holder.address]);
    const fundingHash = keccak256(funding).toLowerCase();
    const listed = (await fundingShop.get('/wallet/transactions?limit=100')).body.data as { id: string; tx_hash: string }[];
    const booked = listed.filter((t) => t.tx_hash === fundingHash);
    // its amount and its fee (21 000 gas × 2 gwei) at the fixed table's 3000.00 USD
    expect(booked).toEqual([
      expect.objectContaining({ status: 'pending', origin: 'signed', direction: 'out', asset: 'ETH', amount: '0.001', value_usd: 300, network_fee_usd: 13, from_address: funder.address, to_address: holder.address, note: null }),
    ]);
    // the funder's coin is held for it, and its nonce counted
    const context = (await fundingShop.get(`/wallet/send-context?network=ethereum&asset=ETH&from=${coin.address}`)).body.data;
    expect([context.nonce, eth(context.available.fee_coin)]).toEqual([1, eth(coin.amount) - eth('0.001') - 21_000n * 2_000_000_000n]);
    expect((await fundingShop.post('/test_clock/advance', { seconds: 61 })).status).toBe(200);
    for (const id of [created.body.data.id, booked[0]!.id]) {
      await eventually(() => fundingShop.get(`/wallet/transactions/${id}`).then((r) => r.body.data), (t) => t.status === 'confirmed', { what: `${id} confirmed` });
    }
  });

  it('an external wallet holding only an EVM account key records no send on Bitcoin or Solana, where it holds no keys (400 invalid_request on network, nothing recorded); on Ethereum it does', async () => {
    const { b, as, businessId: externalId } = await steppedUpOwner(app);
    const outside = b.forBusiness(externalId);
    expect((await as.delete('/wallet')).status).toBe(200); // in setup with nothing received: gone at once
    const keys = keysOfPhrase(generateMnemonic(english));
    expect((await outside.post('/wallet', { type: 'external', evm_xpub: keys.evmXpub })).status).toBe(201);
    const networks = (await outside.get('/wallet')).body.data.networks as { network: string; receiving: boolean }[];
    expect(networks.filter((n) => n.network === 'bitcoin' || n.network === 'solana').map((n) => n.receiving)).toEqual([false, false]);
    const bitcoin = await send(outside, { asset: 'BTC', network: 'bitcoin', amount: '0.001', to_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', tx_hash: 'AB'.repeat(32) });
    expect([bitcoin.status, bitcoin.body.error?.code, bitcoin.body.error?.field]).toEqual([400, 'invalid_request', 'network']);
    const solana = await send(outside, { asset: 'SOL', network: 'solana', amount: '1', to_address: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', tx_hash: base58.encode(randomBytes(64)) });
    expect([solana.status, solana.body.error?.code, solana.body.error?.field]).toEqual([400, 'invalid_request', 'network']);
    expect((await outside.get('/wallet/transactions')).body.data).toEqual([]);
    const record = { asset: 'ETH', network: 'ethereum', amount: '0.001', to_address: RECIPIENT, tx_hash: `0x${randomBytes(32).toString('hex')}` };
    const ethereum = await send(outside, record);
    expect([ethereum.status, ethereum.body.data?.origin]).toEqual([201, 'external']);
    // the same hash again: 409 duplicate_transaction naming tx_hash, the input an external record sends (audit F2, 2026-11-29)
    const again = await send(outside, record);
    expect([again.status, again.body.error.code, again.body.error.field]).toEqual([409, 'duplicate_transaction', 'tx_hash']);
  });

  it('an address the wallet’s keys derive is its own though no checkout holds it: 400 invalid_address up to 20 indices past those handed out (created wallet: EVM and Solana; external: EVM, Bitcoin, its Solana address)', async () => {
    const wallet = (await shop.get('/wallet')).body.data;
    const phrase = await walletPhrase(app.api, wallet.id);
    const refusedTo = async (body: Record<string, unknown>, on: Shop = shop) => {
      const answer = await send(on, body);
      return [answer.status, answer.body.error?.code, answer.body.error?.field];
    };
    const ownRefusal = [400, 'invalid_address', 'to_address'];
    // a created wallet whose checkouts hold a few EVM addresses: one a few indices further is its own
    const unheld = mnemonicToAccount(phrase, { addressIndex: 7 }).address;
    expect(await refusedTo({ asset: 'ETH', network: 'ethereum', amount: '0.001', to_address: unheld, signed_transaction: await signedEth('0.001', { to: unheld }) })).toEqual(ownRefusal);
    // and on Solana, where no checkout reserved anything yet
    expect(await refusedTo({ asset: 'SOL', network: 'solana', amount: '0.1', to_address: solanaAddress(phraseSeed(phrase), 2), signed_transaction: 'AQ==' })).toEqual(ownRefusal);

    // an external wallet connected with its public keys, before any checkout
    const { b, as, businessId: externalId } = await steppedUpOwner(app);
    const outside = b.forBusiness(externalId);
    expect((await as.delete('/wallet')).status).toBe(200);
    const keys = keysOfPhrase(generateMnemonic(english));
    expect((await outside.post('/wallet', { type: 'external', evm_xpub: keys.evmXpub, bitcoin_xpub: keys.bitcoinXpub, solana_address: keys.solanaAddress0 })).status).toBe(201);
    const record = (network: string, asset: string, amount: string, to_address: string, tx_hash: string) => refusedTo({ asset, network, amount, to_address, tx_hash }, outside);
    const evmHash = () => `0x${randomBytes(32).toString('hex')}`;
    expect(await record('ethereum', 'ETH', '0.001', evmAddress(keys.evmXpub, 0).toLowerCase(), evmHash())).toEqual(ownRefusal);
    expect(await record('polygon', 'USDC', '1', evmAddress(keys.evmXpub, OWN_ADDRESS_GAP - 1), evmHash())).toEqual(ownRefusal);
    expect(await record('bitcoin', 'BTC', '0.001', bitcoinAddress(keys.bitcoinXpub, 3), randomBytes(32).toString('hex'))).toEqual(ownRefusal);
    expect(await record('solana', 'SOL', '1', keys.solanaAddress0, base58.encode(randomBytes(64)))).toEqual(ownRefusal);
    // the bound: past the gap, an address is not recognised (and another wallet's never is)
    expect(await record('ethereum', 'ETH', '0.001', evmAddress(keys.evmXpub, OWN_ADDRESS_GAP), evmHash())).toEqual([201, undefined, undefined]);
    expect(await record('ethereum', 'ETH', '0.001', RECIPIENT, evmHash())).toEqual([201, undefined, undefined]);
    // an index taken for a checkout that never opened (no checkout holds it): still its own; and the bound moves with the counter
    const taken = await app.api.app.get(WalletAddresses).reserve(externalId, 'ethereum');
    expect([taken.index, taken.address]).toEqual([0, evmAddress(keys.evmXpub, 0)]);
    expect(await record('ethereum', 'ETH', '0.001', taken.address, evmHash())).toEqual(ownRefusal);
    expect(await record('ethereum', 'ETH', '0.001', evmAddress(keys.evmXpub, OWN_ADDRESS_GAP), evmHash())).toEqual(ownRefusal);
    expect(await record('ethereum', 'ETH', '0.001', evmAddress(keys.evmXpub, OWN_ADDRESS_GAP + 1), evmHash())).toEqual([201, undefined, undefined]);
  });

  it('send context: the next nonce, fees per speed and the funds available of one of the wallet’s addresses; another address is 400 invalid_address; API keys 403', async () => {
    const context = await shop.get(`/wallet/send-context?network=ethereum&asset=ETH&from=${funded.address}`);
    expect(context.status).toBe(200);
    const recorded = (await shop.get('/wallet/transactions?limit=100')).body.data as { amount: string; status: string }[];
    expect(context.body.data).toMatchObject({ kind: 'send_context', network: 'ethereum', asset: 'ETH', from_address: signer.address, chain_id: 1, nonce: recorded.length, available: { fee_coin_asset: 'ETH' } });
    expect(Object.keys(context.body.data.fees)).toEqual(['slow', 'standard', 'fast']);
    const held = recorded.filter((t) => t.status !== 'failed').reduce((total, t) => total + eth(t.amount) + 21_000n * 2_000_000_000n, 0n);
    expect(eth(context.body.data.available.asset)).toBe(eth(funded.amount) - held);
    const foreign = await shop.get(`/wallet/send-context?network=ethereum&asset=ETH&from=${RECIPIENT}`);
    expect([foreign.status, foreign.body.error.code, foreign.body.error.field]).toEqual([400, 'invalid_address', 'from']);
    const keyed = await businessWithKey(app.api, true);
    const byKey = await keyed.client.get(`/wallet/send-context?network=ethereum&asset=ETH&from=${funded.address}`);
    expect([byKey.status, byKey.body.error.code]).toEqual([403, 'session_required']);
  });
});
