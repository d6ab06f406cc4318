import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { PaymentStreams } from '../../libs/payments/src/app/streams';
import { eventually } from '../support/eventually';
import { LocalBitcoinChain } from './bitcoin/local-chain';
import { liveBitcoinShopPerSuite } from './bitcoin/live-suite';

/**
 * A Bitcoin payment broadcast inside the quote and mined after it ended (decision 0023, addendum
 * 2026-11-29), on the local chain behind the Esplora stand-in: the watcher sees the transaction
 * in the mempool while the quote is live, the checkout is held past its end (the quote timer
 * fires and changes nothing), and the transaction, mined later, is counted on time — the payment
 * succeeds with the timeline of any on-time payment. One dropped from the mempool instead ends
 * the hold: the checkout expires, and the transaction mined after all is late, as before.
 * Quotes last 60 s (the shortest QUOTE_TTL_SECONDS), so the test waits for real time to pass.
 */
describe('a Bitcoin transfer seen in the mempool before the quote ends holds the checkout until mined or dropped', () => {
  const suite = liveBitcoinShopPerSuite('Live Bitcoin Mempool Shop', { QUOTE_TTL_SECONDS: '60' });
  let chain: LocalBitcoinChain;
  beforeAll(() => {
    chain = suite.chain;
  });

  const eventTypes = async (checkoutId: string) => (await suite.api.app.get(PaymentStreams).checkoutHistory(checkoutId)).events.map((e) => e.type);
  const timerStatus = async (id: string) => {
    const { rows } = await suite.api.app.get<Database>(DATABASE).query<{ status: string }>(`SELECT status FROM timers WHERE id = $1`, [id]);
    return rows[0]?.status ?? null;
  };

  it('broadcast before the quote ends, mined after: completed and succeeded on time; dropped instead: expired, and late when mined after all', async () => {
    const { shop } = suite;
    const checkoutOf = (id: string) => shop.get(`/checkouts/${id}`).then((r) => r.body.data);
    const held = await shop.createPayment({ amount: 3000, currency: 'USD' });
    const heldCheckout = await shop.openCheckout(held, { asset: 'BTC', network: 'bitcoin' });
    const dropped = await shop.createPayment({ amount: 3000, currency: 'USD' });
    const droppedCheckout = await shop.openCheckout(dropped, { asset: 'BTC', network: 'bitcoin' });
    expect(heldCheckout.crypto.amount).toBe('0.0005');

    const tx = chain.pay([{ address: heldCheckout.crypto.address, sats: 50_000n }]);
    const evicted = chain.pay([{ address: droppedCheckout.crypto.address, sats: 50_000n }]);
    chain.broadcast(tx);
    chain.broadcast(evicted);
    for (const id of [heldCheckout.id, droppedCheckout.id]) {
      await eventually(() => eventTypes(id), (types) => types.includes('CheckoutTransferSighted'), { what: `${id} sighted in the mempool`, timeoutMs: 30_000 });
    }
    // nothing counted while it waits: the checkout is open, nothing received, the transaction shown as pending
    // (the watcher records the sighting in the background: the checkout's read model follows)
    const seen = await eventually(() => checkoutOf(heldCheckout.id), (c) => c.crypto.pending_tx_hash !== null, { what: 'pending_tx_hash shown' });
    expect(seen).toMatchObject({ status: 'open', crypto: { received_amount: '0', tx_hash: null, pending_tx_hash: tx.txid } });
    // funds on the way (§7): the customer can neither cancel nor replace it, and the page offers neither
    const customer = shop.as(null);
    expect((await customer.post(`/checkouts/${heldCheckout.id}/cancel`)).body.error.code).toBe('checkout_not_cancelable');
    expect((await customer.post(`/checkouts/${heldCheckout.id}/supersede`)).body.error.code).toBe('checkout_not_supersedable');
    const page = await (await fetch(`${new URL(suite.api.base).origin}${new URL(held.url).pathname}`)).text();
    expect(page).toContain('Your transfer was seen on the network.');
    expect(page).toMatch(/<section id="view-pay"[^>]*>[\s\S]*?<button type="button" class="link" id="change-coin" hidden>[\s\S]*?data-action="cancel" hidden>/);

    // the quotes end: their timers fire and change nothing
    for (const checkout of [heldCheckout, droppedCheckout]) {
      await eventually(() => timerStatus(`checkout.quote_expiry:${checkout.id}:${checkout.expires_at}`), (status) => status === 'fired', { what: `${checkout.id} quote timer fired`, timeoutMs: 90_000, intervalMs: 250 });
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(checkout.expires_at));
      expect(await checkoutOf(checkout.id)).toMatchObject({ status: 'open', crypto: { pending_tx_hash: checkout.id === heldCheckout.id ? tx.txid : evicted.txid } });
    }

    // one transaction leaves the mempool unmined: its checkout's quote ends now
    chain.evict(evicted);
    const expired = await eventually(() => checkoutOf(droppedCheckout.id), (c) => c.status === 'expired', { what: 'dropped → expired', timeoutMs: 30_000 });
    expect(expired.crypto.pending_tx_hash).toBeNull();

    // the other is mined after the quote's end: on time
    chain.mine([tx]);
    const confirming = await eventually(() => checkoutOf(heldCheckout.id), (c) => c.status === 'confirming', { what: 'mined → confirming' });
    expect(confirming.crypto).toMatchObject({ tx_hash: tx.txid, received_amount: '0.0005', pending_tx_hash: null });
    chain.mine();
    const paid = await eventually(() => shop.payment(held.id), (p) => p.status !== 'pending', { what: 'payment decided' });
    expect(paid).toMatchObject({ status: 'succeeded', amount_received: 3000, settlement: { amount: '0.0005', tx_hash: tx.txid } });
    expect(paid.events.map((e: { type: string }) => e.type)).toEqual(['created', 'method_selected', 'detected', 'confirmation', 'confirmation', 'succeeded']);
    expect((await checkoutOf(heldCheckout.id)).status).toBe('completed');

    // the dropped one mined after all: late, for the business to review, as without a sighting
    chain.mine([evicted]);
    const late = await eventually(() => checkoutOf(droppedCheckout.id), (c) => c.status === 'needs_review', { what: 'late transfer → needs_review' });
    expect(late.review_reason).toBe('late');
  }, 180_000);
});
