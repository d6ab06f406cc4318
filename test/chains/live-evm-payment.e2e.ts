import { AnvilNode, Hex, startAnvil } from '../support/anvil';
import { compileContract } from '../support/solidity';
import { Client, TestApi, appPerSuite, businessWithKey, startApp } from '../support/fixtures';
import { eventually } from '../support/eventually';
import { TickerServer, startTickerServer } from '../rates/ticker-server';
import { Receiver, startReceiver } from '../webhooks/support';
import { Webhook } from 'standardwebhooks';
import { ChainWatchers } from '@lib/payments';

/**
 * Real money in on a local EVM chain (issue 11, "Done when"): two anvil nodes from npm stand for
 * Ethereum (chain id 1) and Polygon (137), each with a 6-decimal test USDC deployed at the same
 * address. The service watches both through viem (EVM_RPC_URL_<NETWORK>, EVM_TOKENS_<NETWORK>);
 * a LIVE business with a wallet created in the service takes payments that real token transfers
 * from a customer account pay: detected, confirmed block by block, succeeded — or sent on the
 * other chain (needs_review, wrong network), or undone by a reorganisation (withdrawn).
 */
describe('a live business takes real USDC on local EVM chains (anvil), watched by the service', () => {
  let ethereum: AnvilNode;
  let polygon: AnvilNode;
  let usdc: Hex;
  let ticker: TickerServer;
  let receiver: Receiver;
  const CUSTOMER = 1;

  const suite = appPerSuite(
    async () => {
      ethereum = await startAnvil({ chainId: 1 });
      polygon = await startAnvil({ chainId: 137 });
      const token = compileContract('TestUSDC.sol', 'TestUSDC');
      // the same deployer and nonce on both chains: the same contract address
      usdc = await ethereum.deploy(0, token);
      expect(await polygon.deploy(0, token)).toBe(usdc);
      for (const node of [ethereum, polygon]) await node.send(0, { to: usdc, data: call(node, 'mint', [node.address(CUSTOMER), 1_000_000_000_000n]) });
      // live rates from a local stand-in of the exchange's ticker (USDC in USD is at par without a request)
      ticker = await startTickerServer();
      ticker.set('ETH-USD', { kind: 'price', price: '3000.00' });
      receiver = await startReceiver();
      return startApp('postgres', {
        RATES_URL: ticker.url,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true', // the subscriber listens on 127.0.0.1
        TRUSTED_PROXIES: 'loopback',
        EVM_RPC_URL_ETHEREUM: ethereum.url,
        EVM_RPC_URL_POLYGON: polygon.url,
        EVM_TOKENS_ETHEREUM: `USDC=${usdc}`,
        EVM_TOKENS_POLYGON: `USDC=${usdc}`,
        CHAIN_POLL_MS: '100',
        // the shortest quote life: a short transfer's quote is held that long before a remainder (a live business has no test clock)
        QUOTE_TTL_SECONDS: '60',
      });
    },
    async (api: TestApi) => {
      const shop = (await businessWithKey(api, false, 'Live Coffee')).client;
      const created = await shop.post('/wallet', { type: 'created' });
      expect(created.status).toBe(201);
      const hook = await shop.post('/webhooks', { url: receiver.url, event_types: ['payment.succeeded'] });
      expect(hook.status).toBe(201);
      return { shop, webhookSecret: hook.body.data.secret as string };
    },
  );
  afterAll(async () => {
    await ethereum?.close();
    await polygon?.close();
    await ticker?.close();
    await receiver?.close();
  });

  const TOKEN_ABI = [
    { type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }], outputs: [{ type: 'bool' }] },
    { type: 'function', name: 'mint', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }], outputs: [] },
  ] as const;
  function call(node: AnvilNode, name: 'transfer' | 'mint', args: readonly [string, bigint]): Hex {
    return node.viem.encodeFunctionData({ abi: TOKEN_ABI, functionName: name, args: args as readonly [Hex, bigint] });
  }
  /** The customer pays `units` of USDC to `to` on `node`: a real ERC-20 transfer, mined at once. */
  const pay = (node: AnvilNode, to: string, units: bigint) => node.send(CUSTOMER, { to: usdc, data: call(node, 'transfer', [to, units]) });
  const checkoutOf = (shop: Client, id: string) => shop.get(`/checkouts/${id}`).then((r) => r.body.data);

  it('payment → checkout → a real transfer → detected → 4 blocks → succeeded; the receipt names the real hash, the signed payment.succeeded webhook arrives', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 2500, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'ethereum' });
    expect(checkout.crypto.amount).toBe('25');
    // the URI a wallet opens names the token contract the service watches (EVM_TOKENS_ETHEREUM), not mainnet USDC's
    expect(checkout.crypto.payment_uri.toLowerCase()).toBe(`ethereum:${usdc}@1/transfer?address=${checkout.crypto.address}&uint256=25000000`.toLowerCase());
    // and a token the deployment does not name for the network is not offered to live payments (it would never be seen)
    const usdt = await shop.post('/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'USDT', network: 'ethereum' }, { 'idempotency-key': `usdt-${payment.id}` });
    expect({ status: usdt.status, code: usdt.body.error?.code, field: usdt.body.error?.field, message: usdt.body.error?.message }).toEqual({
      status: 400,
      code: 'asset_unavailable',
      field: 'asset',
      message: 'This service watches USDC on ethereum, not USDT: live payments in it are not taken there.',
    });
    // a coin the network does not carry at all (ETH on polygon) is 400 asset_unavailable, as on a simulated business — not a 500 (chain audit L2)
    const notCarried = await shop.post('/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'ETH', network: 'polygon' }, { 'idempotency-key': `eth-polygon-${payment.id}` });
    expect({ status: notCarried.status, code: notCarried.body.error?.code, field: notCarried.body.error?.field }).toEqual({ status: 400, code: 'asset_unavailable', field: 'network' }); // the registry's field, as a simulated business is told
    const hash = await pay(ethereum, checkout.crypto.address, 25_000_000n);

    const confirming = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming', { what: 'transfer detected' });
    expect(confirming.crypto).toMatchObject({ tx_hash: hash, received_amount: '25', detected_network: 'ethereum' });
    await ethereum.mine(3); // the transfer's block and three more: 4 confirmations
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'payment succeeded' });
    expect(paid.events.map((e: { type: string }) => e.type)).toEqual(['created', 'method_selected', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'succeeded']);
    expect(paid.settlement).toMatchObject({ network: 'ethereum', amount: '25', tx_hash: hash, address: checkout.crypto.address });
    expect(paid.settlement.wallet_id).toMatch(/^wal_/);
    const receipt = (await shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
    expect(receipt.transaction.hash).toBe(hash);
    expect(receipt.transfers).toEqual([expect.objectContaining({ hash, network: 'ethereum', amount: '25' })]);
    // and the business's endpoint gets payment.succeeded, signed, with the payment as the API shows it
    const delivered = await eventually(
      () => receiver.requests.map((r) => new Webhook(suite.webhookSecret).verify(r.body, r.headers as Record<string, string>) as { type: string; mode: string; data: { id: string; status: string; settlement: { tx_hash: string } } }),
      (events) => events.some((e) => e.data.id === payment.id),
      { what: 'payment.succeeded delivered' },
    );
    expect(delivered.find((e) => e.data.id === payment.id)).toMatchObject({ type: 'payment.succeeded', mode: 'live', data: { status: 'succeeded', settlement: { tx_hash: hash } } });
  });

  it('a transfer mined inside the quote but read after its end (the watchers stopped meanwhile: a restart, a node outage) counts on time: the quote waits for the chain; succeeded, nothing in review (0025 addendum, 2026-11-29, lateness at mining)', async () => {
    const { shop } = suite;
    const watchers = suite.api.app.get(ChainWatchers);
    const payment = await shop.createPayment({ amount: 700, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'ethereum' });
    await watchers.onApplicationShutdown(); // nothing reads the chains now
    let hash: string;
    try {
      hash = await pay(ethereum, checkout.crypto.address, 7_000_000n); // mined at once, well inside the 60-second quote
      await ethereum.receipt(hash as Hex);
      // past the quote's end: its expiry timer is due, and waits for ethereum to be read through the end
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(checkout.expires_at) - Date.now()) + 3000));
      expect((await checkoutOf(shop, checkout.id)).status).toBe('open');
    } finally {
      await watchers.onApplicationBootstrap(); // the watchers again: they read the block mined meanwhile
    }
    const confirming = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status !== 'open', { what: 'the transfer read' });
    expect(confirming).toMatchObject({ status: 'confirming', review_reason: null, crypto: { tx_hash: hash, received_amount: '7' } });
    await ethereum.mine(3);
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'payment succeeded' });
    expect(paid.events.map((e: { type: string }) => e.type)).not.toContain('needs_review');
    expect(paid.settlement).toMatchObject({ network: 'ethereum', amount: '7', tx_hash: hash });
    // the quote ended once the chain was read through its end: nothing left open
    await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'completed', { what: 'checkout completed' });
  }, 150_000);

  it('two Transfer logs to the checkout address in ONE transaction (a batched payout) credit both amounts: succeeded, not underpaid', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 1000, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'ethereum' });
    const to = checkout.crypto.address as Hex;
    const data = ethereum.viem.encodeFunctionData({ abi: ethereum.viem.parseAbi(['function transferMany(address[] to, uint256[] value)']), functionName: 'transferMany', args: [[to, to], [5_000_000n, 5_000_000n]] });
    const hash = await ethereum.send(CUSTOMER, { to: usdc, data, gas: 200_000n });
    const confirming = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming', { what: 'batched transfer detected' });
    expect(confirming.crypto).toMatchObject({ tx_hash: hash, received_amount: '10' }); // was 5: the second log was taken for the first again
    await ethereum.mine(3);
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status !== 'pending', { what: 'payment decided' });
    expect(paid).toMatchObject({ status: 'succeeded', amount_received: 1000, settlement: { amount: '10', tx_hash: hash } });
  });

  it('ETH: quoted from the live rate, paid with a native transfer, succeeded', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 3000, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'ETH', network: 'ethereum' });
    expect(checkout.crypto).toMatchObject({ amount: '0.01', rate: { amount: 300_000, currency: 'USD', source: 'coinbase-exchange:ETH-USD' } });
    const hash = await ethereum.send(CUSTOMER, { to: checkout.crypto.address as Hex, value: 10n ** 16n });
    await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming' && c.crypto.tx_hash === hash, { what: 'native transfer detected' });
    await ethereum.mine(3);
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'paid in ETH' });
    expect(paid.settlement).toMatchObject({ asset: 'ETH', amount: '0.01', tx_hash: hash });
  });

  it('underpaid → after the held quote, a remainder checkout at a fresh address → the rest arrives → succeeded, remainder_paid', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 2000, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'ethereum' });
    await pay(ethereum, checkout.crypto.address, 15_000_000n); // 15 of 20 USDC
    await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming', { what: 'short transfer detected' });
    await ethereum.mine(3);
    const underpaid = await eventually(() => shop.payment(payment.id), (p) => p.status === 'underpaid', { what: 'payment underpaid' });
    const early = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
    expect([early.status, early.body.error?.code]).toEqual([409, 'remainder_unavailable']);
    // the quote of the short transfer is held for the quote life (60 s here), then the remainder opens
    const held = underpaid.events.find((e: { type: string }) => e.type === 'underpaid');
    expect(held).toBeDefined();
    const remainder = await eventually(() => shop.postOnce(`/payments/${payment.id}/request-remainder`), (r) => r.status === 201, { what: 'remainder opened', timeoutMs: 90_000, intervalMs: 1000 });
    const next = remainder.body.data.checkout;
    expect(next).toMatchObject({ remainder: true, crypto: { amount: '5', network: 'ethereum' } });
    expect(next.crypto.address).not.toBe(checkout.crypto.address);
    const rest = await pay(ethereum, next.crypto.address, 5_000_000n);
    await eventually(() => checkoutOf(shop, next.id), (c) => c.status === 'confirming', { what: 'the rest detected' });
    await ethereum.mine(3);
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'paid in full' });
    expect(paid.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['underpaid', 'remainder_requested', 'remainder_paid', 'succeeded']));
    expect(paid.amount_received).toBe(2000);
    const receipt = (await shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
    expect(receipt.transfers.map((t: { hash: string }) => t.hash)).toContain(rest);
  }, 150_000);

  it('/health shows each watched network: this process holds its lease and follows its head', async () => {
    const health = await eventually(
      () => suite.shop.as(null).get('/health').then((r) => r.body.data),
      (h) => h.chains.length === 2 && h.chains.every((c: { lease_held: boolean; lag_blocks: number | null }) => c.lease_held && c.lag_blocks === 0),
      { what: 'both watchers at their heads' },
    );
    expect(health.chains.map((c: { network: string }) => c.network).sort()).toEqual(['ethereum', 'polygon']);
    expect(health.chains.every((c: { last_error: string | null }) => c.last_error === null)).toBe(true);
    // read through a moment ago: live quotes end once this passes their end (0025 addendum, 2026-11-29)
    for (const chain of health.chains as { caught_up_at: string | null }[]) {
      expect(chain.caught_up_at).not.toBeNull();
      expect(Date.now() - Date.parse(chain.caught_up_at as string)).toBeLessThan(30_000);
    }
  });

  it('the same address paid on the other chain → needs_review with detected_network', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 1000, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'ethereum' });
    const hash = await pay(polygon, checkout.crypto.address, 10_000_000n);
    const review = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'needs_review', { what: 'wrong network seen' });
    expect(review).toMatchObject({ review_reason: 'wrong_network', crypto: { detected_network: 'polygon', tx_hash: hash }, confirmations: { required: 32 } });
    // the payment follows its checkout (the process manager's reaction, then its projection)
    await eventually(() => shop.payment(payment.id), (p) => p.status === 'needs_review', { what: 'payment in review' });
    // final at polygon's depth, not the quote's 4 (0025 addendum, 2026-11-29, own network): the watcher's counts past 4 are recorded against 32
    await polygon.mine(5); // the transfer's block and five more: 6 confirmations
    const six = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.confirmations.current === 6, { what: 'six polygon confirmations on the checkout' });
    expect(six).toMatchObject({ status: 'needs_review', confirmations: { current: 6, required: 32 } });
    const timeline = await eventually(() => shop.payment(payment.id), (p) => p.events.filter((e: { type: string }) => e.type === 'confirmation').length === 6, { what: 'six confirmation entries' });
    expect(timeline.events.filter((e: { type: string }) => e.type === 'confirmation').map((e: { data: { current: number; required: number } }) => [e.data.current, e.data.required])).toEqual([1, 2, 3, 4, 5, 6].map((n) => [n, 32]));
    expect(timeline.status).toBe('needs_review');
  });

  it('paid on the other chain first (needs_review), then on the quoted one: both recorded, the receipt lists both, the payment stays in review for the business; a completed checkout paid again on the other chain lists that transfer too (0025 addendum, 2026-11-28, second)', async () => {
    const { shop } = suite;
    const detected = (p: { events: { type: string }[] }) => p.events.filter((e) => e.type === 'detected').length;
    // (a) wrong network, then the quoted network, to the same address
    const payment = await shop.createPayment({ amount: 1000, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'ethereum' });
    const wrong = await pay(polygon, checkout.crypto.address, 10_000_000n);
    await eventually(() => shop.payment(payment.id), (p) => p.status === 'needs_review', { what: 'payment in review' });
    const right = await pay(ethereum, checkout.crypto.address, 10_000_000n);
    await eventually(() => shop.payment(payment.id), (p) => detected(p) === 2, { what: 'the second transfer detected on the payment' });
    await ethereum.mine(3);
    const reviewed = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.crypto.tx_hash === right && c.confirmations.current === 4, { what: 'the transfer on the quoted network final' });
    // both reached its address: 10 on polygon and 10 on ethereum, as the payment's method and the receipt say (outside audit M2, 2026-11-29)
    expect(reviewed).toMatchObject({ status: 'needs_review', review_reason: 'wrong_network', crypto: { received_amount: '20', remaining_amount: null, overpaid_amount: null, detected_network: 'ethereum' } });
    const inReview = await eventually(() => shop.payment(payment.id), (p) => p.events.some((e: { type: string; data: { current?: number } | null }) => e.type === 'confirmation' && e.data?.current === 4), { what: 'its last confirmation on the payment' });
    expect(inReview.status).toBe('needs_review'); // money arrived on another network: the business decides
    expect(inReview.events.filter((e: { type: string }) => e.type === 'detected').map((e: { data: unknown }) => e.data)).toEqual([
      { amount: '10', network: 'polygon', tx_hash: wrong },
      { amount: '10', network: 'ethereum', tx_hash: right },
    ]);
    const receipt = (await shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
    expect(receipt.transfers).toEqual([expect.objectContaining({ hash: wrong, network: 'polygon', amount: '10' }), expect.objectContaining({ hash: right, network: 'ethereum', amount: '10' })]);

    // (b) a completed checkout paid again, on the other chain: listed for the business to refund, never counted
    const paidPayment = await shop.createPayment({ amount: 700, currency: 'USD' });
    const paidCheckout = await shop.openCheckout(paidPayment, { asset: 'USDC', network: 'ethereum' });
    const first = await pay(ethereum, paidCheckout.crypto.address, 7_000_000n);
    await eventually(() => checkoutOf(shop, paidCheckout.id), (c) => c.status === 'confirming', { what: 'transfer detected' });
    await ethereum.mine(3);
    await eventually(() => checkoutOf(shop, paidCheckout.id), (c) => c.status === 'completed', { what: 'checkout completed' });
    const again = await pay(polygon, paidCheckout.crypto.address, 1_000_000n);
    const listed = await eventually(() => shop.payment(paidPayment.id), (p) => detected(p) === 2, { what: 'the other chain\'s transfer on the payment' });
    expect(listed).toMatchObject({ status: 'succeeded', method: { network: 'ethereum', amount: '7', overpaid_amount: null, tx_hash: first }, settlement: { network: 'ethereum', amount: '7' } });
    expect(listed.events.filter((e: { type: string }) => e.type === 'detected').at(-1)).toMatchObject({ data: { tx_hash: again, network: 'polygon', amount: '1' } });
    const paidReceipt = (await shop.as(null).get(`/public/receipts/${paidPayment.id}`)).body.data;
    expect(paidReceipt).toMatchObject({ status: 'succeeded', received_amount: '7', crypto: { network: 'ethereum' } });
    expect(paidReceipt.transfers).toEqual([expect.objectContaining({ hash: first, network: 'ethereum', amount: '7' }), expect.objectContaining({ hash: again, network: 'polygon', amount: '1' })]);
    expect(await checkoutOf(shop, paidCheckout.id)).toMatchObject({ status: 'completed', crypto: { received_amount: '7', overpaid_amount: null, detected_network: 'polygon', tx_hash: again } });
  });

  it('a reorganisation before the transfer is final withdraws it: no success, the checkout takes a transfer again', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 500, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'ethereum' });
    const fork = await ethereum.snapshot();
    const hash = await pay(ethereum, checkout.crypto.address, 5_000_000n);
    await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming' && c.crypto.tx_hash === hash, { what: 'transfer detected' });
    // the block with the transfer leaves the chain; a longer chain without it takes its place
    await ethereum.revert(fork);
    await ethereum.mine(6);
    const reopened = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'open', { what: 'transfer withdrawn' });
    expect(reopened.crypto).toMatchObject({ received_amount: '0', tx_hash: null });
    const after = await eventually(() => shop.payment(payment.id), (p) => p.events.some((e: { type: string }) => e.type === 'withdrawn'), { what: 'withdrawn on the payment' });
    expect(after.status).toBe('pending');
    expect(after.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['detected', 'withdrawn']));
    expect(after.events.map((e: { type: string }) => e.type)).not.toContain('succeeded');

    // the customer pays again on the new chain: it counts (the same nonce and call, so the same
    // transaction hash as the withdrawn one — a new detection all the same)
    const again = await pay(ethereum, checkout.crypto.address, 5_000_000n);
    expect(again).toBe(hash);
    await ethereum.mine(3);
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'paid after the reorg' });
    expect(paid.settlement.tx_hash).toBe(again);
  });

  it('a second transfer to the address of a checkout that completed is credited to it (0025 addendum, 2026-11-28): listed and detected at once, withdrawn by a reorg before it is final, counted once final; the payment stays succeeded', async () => {
    const { shop } = suite;
    const updates = await startReceiver();
    try {
      const hook = await shop.post('/webhooks', { url: updates.url, event_types: ['payment.updated'] });
      expect(hook.status).toBe(201);
      const payment = await shop.createPayment({ amount: 1000, currency: 'USD' });
      const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'ethereum' });
      const address = checkout.crypto.address as string;
      const first = await pay(ethereum, address, 10_000_000n);
      await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming', { what: 'first transfer detected' });
      await ethereum.mine(3);
      await eventually(() => shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'payment succeeded' });
      await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'completed', { what: 'checkout completed' });
      const detections = (p: { events: { type: string }[] }) => p.events.filter((e) => e.type === 'detected').length;

      // 2 USDC more, in a block a reorganisation then takes away before it is final
      const fork = await ethereum.snapshot();
      const undone = await pay(ethereum, address, 2_000_000n);
      const seen = await eventually(() => shop.payment(payment.id), (p) => detections(p) === 2, { what: 'the second transfer detected on the payment' });
      expect(seen).toMatchObject({ status: 'succeeded', amount_received: 1000, method: { amount: '10', overpaid_amount: null } });
      expect(seen.events.filter((e: { type: string }) => e.type === 'detected').at(-1)).toMatchObject({ data: { tx_hash: undone, amount: '2', network: 'ethereum' } });
      const twelve = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.crypto.tx_hash === undone, { what: 'the checkout with it' });
      expect(twelve).toMatchObject({ status: 'completed', crypto: { received_amount: '12', overpaid_amount: '2' } });
      await ethereum.revert(fork);
      await ethereum.mine(6);
      const withdrawn = await eventually(() => shop.payment(payment.id), (p) => p.events.some((e: { type: string }) => e.type === 'withdrawn'), { what: 'withdrawn on the payment' });
      expect(withdrawn).toMatchObject({ status: 'succeeded', method: { amount: '10', overpaid_amount: null }, settlement: { amount: '10', tx_hash: first } });
      const back = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.crypto.received_amount === '10', { what: 'the checkout without it' });
      expect(back).toMatchObject({ status: 'completed', crypto: { overpaid_amount: null, tx_hash: first }, confirmations: { current: 4, required: 4 } });

      // 5 USDC more, final this time: counted
      const second = await pay(ethereum, address, 5_000_000n);
      await eventually(() => shop.payment(payment.id), (p) => detections(p) === 3, { what: 'the third transfer detected' });
      await ethereum.mine(3);
      const counted = await eventually(() => shop.payment(payment.id), (p) => p.method.overpaid_amount !== null, { what: 'the second transfer counted' });
      expect(counted).toMatchObject({
        status: 'succeeded',
        amount_received: 1000,
        method: { amount: '15', overpaid_amount: '5', tx_hash: first },
        settlement: { amount: '15', tx_hash: first },
      });
      const timeline = counted.events as { type: string; data: { current?: number } | null }[];
      const success = timeline.findIndex((e) => e.type === 'succeeded');
      expect(timeline.slice(0, success + 1).map((e) => e.type)).toEqual(['created', 'method_selected', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'succeeded']);
      // after it (the undone transfer may have had its first confirmation before the reorg): detected, withdrawn, detected, then the last one's four confirmations
      const after = timeline.slice(success + 1);
      expect(after.filter((e) => e.type !== 'confirmation').map((e) => e.type)).toEqual(['detected', 'withdrawn', 'detected']);
      expect(after.slice(after.findLastIndex((e) => e.type === 'detected') + 1).map((e) => e.data?.current)).toEqual([1, 2, 3, 4]);
      const receipt = (await shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
      expect(receipt).toMatchObject({ status: 'succeeded', received_amount: '15', overpaid_amount: '5', transaction: { hash: first } });
      expect(receipt.transfers).toEqual([expect.objectContaining({ hash: first, amount: '10' }), expect.objectContaining({ hash: second, amount: '5' })]);
      expect(await checkoutOf(shop, checkout.id)).toMatchObject({ status: 'completed', crypto: { received_amount: '15', overpaid_amount: '5', tx_hash: second }, confirmations: { current: 4, required: 4 } });
      // a subscriber to payment.updated learns of it, with the payment as GET shows it
      const delivered = await eventually(
        () => updates.requests.map((r) => new Webhook(hook.body.data.secret as string).verify(r.body, r.headers as Record<string, string>) as { type: string; data: { id: string; method: { overpaid_amount: string | null } } }),
        (events) => events.some((e) => e.data.id === payment.id && e.data.method.overpaid_amount === '5'),
        { what: 'payment.updated with the overpayment delivered' },
      );
      expect(delivered.filter((e) => e.data.id === payment.id).every((e) => e.type === 'payment.updated')).toBe(true);
    } finally {
      await updates.close();
    }
  });
});
