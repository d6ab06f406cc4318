import { Client } from '../support/fixtures';
import { eventually } from '../support/eventually';
import { type LocalBitcoinBlock, LocalBitcoinChain } from './bitcoin/local-chain';
import { liveBitcoinShopPerSuite } from './bitcoin/live-suite';

/**
 * Real money in on a local Bitcoin chain (issue 11; the live EVM suite's shape). No Bitcoin node
 * runs here: the test writes mainnet-shaped blocks (real transactions paying the business's
 * BIP-84 addresses, real headers and merkle roots, no proof of work) and the Esplora stand-in
 * serves them; the service watches it through BITCOIN_ESPLORA_URL. A LIVE business with a
 * created wallet takes the payments: detected, 2 confirmations, succeeded — or withdrawn by a
 * reorganisation, and counted again when the transaction is mined again.
 */
describe('a live business takes real BTC on a local Bitcoin chain (Esplora stand-in), watched by the service', () => {
  const ELSEWHERE = 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn'; // the customer's change
  const suite = liveBitcoinShopPerSuite('Live Bitcoin Shop');
  let chain: LocalBitcoinChain;
  beforeAll(() => {
    chain = suite.chain;
  });

  const checkoutOf = (shop: Client, id: string) => shop.get(`/checkouts/${id}`).then((r) => r.body.data);
  const detections = (payment: { events: { type: string }[] }) => payment.events.map((e) => e.type).filter((t) => t === 'detected' || t === 'withdrawn');
  /** A BTC checkout of `amount` (US cents) paid with `sats` in a block mined on the tip, seen detected: also the tip before (`parent`) and the block (`carrying`). */
  const paidInABlock = async (shop: Client, amount: number, sats: bigint) => {
    const payment = await shop.createPayment({ amount, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'BTC', network: 'bitcoin' });
    const tx = chain.pay([{ address: checkout.crypto.address, sats }]);
    const parent = chain.tip;
    const carrying = chain.mine([tx]);
    await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming', { what: 'detected' });
    return { payment, checkout, tx, parent, carrying };
  };
  /** A longer branch of two blocks from `parent` adopted (without the transaction): the checkout once it is open again. */
  const reorganisedOnto = async (shop: Client, parent: LocalBitcoinBlock, checkoutId: string) => {
    const other = chain.mineOn(parent);
    chain.adopt([other, chain.mineOn(other)]);
    return eventually(() => checkoutOf(shop, checkoutId), (c) => c.status === 'open', { what: 'withdrawn' });
  };

  it('two outputs to the checkout address in ONE transaction are credited in full, once; 2 confirmations → succeeded; a satoshi short is underpaid by exactly one', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 3000, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'BTC', network: 'bitcoin' });
    expect(checkout.crypto).toMatchObject({ amount: '0.0005', network: 'bitcoin', payment_uri: `bitcoin:${checkout.crypto.address}?amount=0.0005` });
    expect(checkout.crypto.address).toMatch(/^bc1q[0-9a-z]{38}$/);
    const short = await shop.createPayment({ amount: 3000, currency: 'USD' });
    const shortCheckout = await shop.openCheckout(short, { asset: 'BTC', network: 'bitcoin' });

    const tx = chain.pay([
      { address: checkout.crypto.address, sats: 30_000n },
      { address: ELSEWHERE, sats: 1_234_567n },
      { address: checkout.crypto.address, sats: 20_000n },
    ]);
    const shortTx = chain.pay([{ address: shortCheckout.crypto.address, sats: 49_999n }]);
    chain.mine([tx, shortTx]);
    const confirming = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming' && c.confirmations.current === 1, { what: 'BTC detected' });
    expect(confirming.crypto).toMatchObject({ tx_hash: tx.txid, received_amount: '0.0005', remaining_amount: null, detected_network: 'bitcoin', explorer_url: `https://mempool.space/tx/${tx.txid}` });
    expect(confirming.confirmations).toEqual({ current: 1, required: 2 });

    chain.mine();
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status !== 'pending', { what: 'payment decided' });
    expect(paid).toMatchObject({ status: 'succeeded', amount_received: 3000, settlement: { asset: 'BTC', network: 'bitcoin', amount: '0.0005', tx_hash: tx.txid, address: checkout.crypto.address } });
    expect(paid.events.map((e: { type: string }) => e.type)).toEqual(['created', 'method_selected', 'detected', 'confirmation', 'confirmation', 'succeeded']);
    const receipt = (await shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
    expect(receipt.transaction).toEqual({ hash: tx.txid, url: `https://mempool.space/tx/${tx.txid}` });
    expect(receipt.transfers).toEqual([expect.objectContaining({ hash: tx.txid, network: 'bitcoin', amount: '0.0005' })]);

    const underpaid = await eventually(() => shop.payment(short.id), (p) => p.status === 'underpaid', { what: 'a satoshi short' });
    expect(underpaid.events.find((e: { type: string }) => e.type === 'underpaid').data).toMatchObject({ expected: '0.0005', received: '0.00049999' });
    expect((await checkoutOf(shop, shortCheckout.id)).crypto).toMatchObject({
      received_amount: '0.00049999',
      remaining_amount: '0.00000001',
      remaining_payment_uri: `bitcoin:${shortCheckout.crypto.address}?amount=0.00000001`,
    });
  });

  it('one transaction paying two checkouts of one payment (a superseded quote and the current one): the payment sees both outputs, each from its own checkout (0025 addendum, 2026-11-28, third)', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 3000, currency: 'USD' });
    const first = await shop.openCheckout(payment, { asset: 'BTC', network: 'bitcoin' });
    const second = await shop.openCheckout(payment, { asset: 'BTC', network: 'bitcoin' }); // sets the first aside, still watched (§4)
    expect(second.crypto.address).not.toBe(first.crypto.address);
    // a batched withdrawal naming both addresses: 0.0003 + 0.0002 BTC, the quote in all
    const tx = chain.pay([
      { address: first.crypto.address, sats: 30_000n },
      { address: ELSEWHERE, sats: 777_000n },
      { address: second.crypto.address, sats: 20_000n },
    ]);
    chain.mine([tx]);
    chain.mine();
    // short on each quote, the price in sum (0025 addendum, 2026-11-29, multi-quote): the second output is a second payment,
    // in review for it (duplicate_payment); no checkout asks for more — the first completes with what it has, not awaiting the rest
    for (const [checkout, received, status] of [[first, '0.0003', 'completed'], [second, '0.0002', 'needs_review']] as const) {
      const short = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === status && c.confirmations.current === c.confirmations.required, { what: `${checkout.id} ${status}` });
      expect(short.crypto).toMatchObject({ tx_hash: tx.txid, received_amount: received, remaining_amount: null, remaining_payment_uri: null });
    }
    expect(await checkoutOf(shop, second.id)).toMatchObject({ review_reason: 'duplicate_payment' });
    // the first becomes the method again (nothing had arrived), the second is for review, as two transactions would be
    const reviewed = await eventually(
      () => shop.payment(payment.id),
      (p) => p.status === 'needs_review' && p.events.filter((e: { type: string }) => e.type === 'confirmation').length === 4,
      { what: 'both outputs on the payment, confirmed' },
    );
    expect(reviewed).toMatchObject({ method: { asset: 'BTC', amount: '0.0005', expected_amount: '0.0005', tx_hash: tx.txid }, settlement: { amount: '0.0005', tx_hash: tx.txid } });
    expect(reviewed.events.filter((e: { type: string }) => e.type === 'detected').map((e: { data: unknown }) => e.data)).toEqual([
      { amount: '0.0003', network: 'bitcoin', tx_hash: tx.txid },
      { amount: '0.0002', network: 'bitcoin', tx_hash: tx.txid },
    ]);
    const receipt = (await shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
    expect(receipt).toMatchObject({ received_amount: '0.0005', transaction: { hash: tx.txid } });
    expect(receipt.transfers.map((t: { hash: string; amount: string }) => [t.hash, t.amount])).toEqual([[tx.txid, '0.0003'], [tx.txid, '0.0002']]);
    // the business accepts: both outputs count, the whole quote
    const accepted = await shop.post(`/payments/${payment.id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ status: 'succeeded', amount_received: 3000, method: { amount: '0.0005', overpaid_amount: null } });
  });

  it('a reorganised block: the transfer is withdrawn before its second confirmation, counted again when mined again, never twice', async () => {
    const { shop } = suite;
    const { payment, checkout, tx, parent } = await paidInABlock(shop, 1200, 20_000n);

    // a longer branch from the parent without the transaction
    const reopened = await reorganisedOnto(shop, parent, checkout.id);
    expect(reopened.crypto).toMatchObject({ received_amount: '0', tx_hash: null });

    chain.mine([tx]); // back from the mempool into the next block
    chain.mine();
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'paid after the reorganisation' });
    expect(detections(paid)).toEqual(['detected', 'withdrawn', 'detected']);
    expect(paid).toMatchObject({ amount_received: 1200, settlement: { amount: '0.0002', tx_hash: tx.txid } });
  });

  it('a reorganisation undone (the first branch wins after all): the transfer withdrawn from its block is credited again when that very block returns', async () => {
    const { shop } = suite;
    const { payment, checkout, tx, parent, carrying } = await paidInABlock(shop, 600, 10_000n);

    await reorganisedOnto(shop, parent, checkout.id);

    // the first branch grows longer: its block, the same hash, carries the transaction again
    const next = chain.mineOn(carrying);
    chain.adopt([carrying, next, chain.mineOn(next)]);
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status !== 'pending', { what: 'payment decided' });
    expect(paid).toMatchObject({ status: 'succeeded', amount_received: 600, settlement: { amount: '0.0001', tx_hash: tx.txid } });
    expect(detections(paid)).toEqual(['detected', 'withdrawn', 'detected']);
  });
});
