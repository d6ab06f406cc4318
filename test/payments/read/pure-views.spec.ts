import { createRegistry } from '@lib/chains';
import { RecordedEvent } from '@lib/eventstore';
import {
  checkoutView,
  foldCheckoutView,
  foldPaymentView,
  paymentFailureMessage,
  paymentUri,
  paymentUrl,
  paymentView,
  receiptView,
} from '../../../libs/payments/src/read';
import { CHECKOUT_BASE, MIN, SENDER, World, hash, iso, oneTransactionTwoCheckouts, paidTwoQuotesInTwoCoins } from './fixtures';

/**
 * The pure parts of the read side: payment URIs per chain family (BIP-21, EIP-681 native and
 * ERC-20, Solana Pay with and without an SPL mint), the reducers' handling of replays and
 * foreign events, and read-time options (explorers from an injected registry, the checkout base).
 */

const ADDRESS_EVM = '0x' + '12'.repeat(20);
const ADDRESS_SOL = '7v91N7iZ9mNicL8WfG6cgSCKyRXydQjLh6UYBWwm6y1Q';
const ADDRESS_BTC = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

describe('paymentUri', () => {
  it('EIP-681 ERC-20 transfer: token contract, chain id, recipient and smallest units', () => {
    expect(paymentUri({ asset: 'USDC', network: 'ethereum', address: ADDRESS_EVM, amount: '100.5' })).toBe(
      `ethereum:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48@1/transfer?address=${ADDRESS_EVM}&uint256=100500000`,
    );
    expect(paymentUri({ asset: 'USDT', network: 'polygon', address: ADDRESS_EVM, amount: '0.000001' })).toBe(
      `ethereum:0xc2132D05D31c914a87C6611C10748AEb04B58e8F@137/transfer?address=${ADDRESS_EVM}&uint256=1`,
    );
  });

  it('EIP-681 native coin: the recipient, chain id and value in wei (no exponent)', () => {
    expect(paymentUri({ asset: 'ETH', network: 'base', address: ADDRESS_EVM, amount: '0.05' })).toBe(`ethereum:${ADDRESS_EVM}@8453?value=50000000000000000`);
    expect(paymentUri({ asset: 'ETH', network: 'ethereum', address: ADDRESS_EVM, amount: '1234.000000000000000001' })).toBe(
      `ethereum:${ADDRESS_EVM}@1?value=1234000000000000000001`,
    );
  });

  it('BIP-21 for bitcoin, in BTC', () => {
    expect(paymentUri({ asset: 'BTC', network: 'bitcoin', address: ADDRESS_BTC, amount: '0.00153' })).toBe(`bitcoin:${ADDRESS_BTC}?amount=0.00153`);
  });

  it('Solana Pay: SOL in SOL; an SPL token with its mint', () => {
    expect(paymentUri({ asset: 'SOL', network: 'solana', address: ADDRESS_SOL, amount: '1.5' })).toBe(`solana:${ADDRESS_SOL}?amount=1.5`);
    expect(paymentUri({ asset: 'USDC', network: 'solana', address: ADDRESS_SOL, amount: '20' })).toBe(
      `solana:${ADDRESS_SOL}?amount=20&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v`,
    );
  });

  it('refuses an asset the network does not carry', () => {
    expect(() => paymentUri({ asset: 'ETH', network: 'polygon', address: ADDRESS_EVM, amount: '1' })).toThrow();
  });
});

describe('view reducers', () => {
  const world = () => {
    const w = new World();
    w.at(0).create('pmt_1', { metadata: { order: 'o-1' } });
    w.at(MIN).open('chk_1', 'pmt_1', { country: 'NL' });
    w.at(2 * MIN).send('chk_1', 'exact', hash(1));
    return w;
  };
  const paymentEvents = (log: RecordedEvent[]) => log.filter((e) => e.stream === 'payment-pmt_1' || e.type === 'CheckoutOpened');
  const paymentStream = (log: RecordedEvent[]) => log.filter((e) => e.stream === 'payment-pmt_1');
  /** pmt_1 created, chk_1 opened on it a minute later */
  const opened = () => {
    const w = new World();
    w.at(0).create('pmt_1');
    w.at(MIN).open('chk_1', 'pmt_1');
    return w;
  };
  /** opened, then a transfer (hash 1) sent at 2 min and confirmed at 3 min */
  const sentAndConfirmed = (kind: 'exact' | 'underpaid') => {
    const w = opened();
    w.at(2 * MIN).send('chk_1', kind, hash(1));
    w.at(3 * MIN).confirm('chk_1', hash(1));
    return w;
  };
  /** the payment (folded from its own stream, the webhook outbox's way), its receipt and chk_1's view */
  const views = (w: World) => {
    const state = foldPaymentView(paymentStream(w.recorded()))!;
    const checkout = foldCheckoutView(w.recorded().filter((e) => e.stream === 'checkout-chk_1'));
    return { state, payment: paymentView(state, { checkoutBaseUrl: CHECKOUT_BASE }), receipt: receiptView(state, null), checkout: checkout && checkoutView(checkout) };
  };

  it('a transfer withdrawn by a reorganisation, nothing else received: the checkout has the shape of one nothing was sent to (remaining and its URI null), also from an event stored before the decider said so (chain audit L1)', () => {
    const w = new World();
    w.at(0).create('pmt_1');
    w.at(MIN).open('chk_1', 'pmt_1');
    const fresh = views(w).checkout!;
    expect(fresh.crypto).toMatchObject({ received_amount: '0', remaining_amount: null, remaining_payment_uri: null });
    w.at(2 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(1), network: 'ethereum', amount: '40', fromAddress: SENDER });
    expect(views(w).checkout!.crypto).toMatchObject({ received_amount: '40', remaining_amount: '60' });
    w.at(3 * MIN).checkout('chk_1', { type: 'WithdrawTransfer', txHash: hash(1) });
    const withdrawn = views(w).checkout!;
    expect(withdrawn).toMatchObject({ status: 'open' });
    expect(withdrawn.crypto).toEqual(fresh.crypto);
    // an event recorded before the decider left remaining null reads the same
    const old = w.recorded().filter((e) => e.stream === 'checkout-chk_1').map((e) => (e.type === 'CheckoutTransferWithdrawn' ? { ...e, data: { ...(e.data as object), remaining_amount: '100' } } : e));
    expect(checkoutView(foldCheckoutView(old)!).crypto).toEqual(fresh.crypto);
  });

  it('a payment with a transfer on its way: pending, settlement shown, nothing confirmed yet', () => {
    const state = foldPaymentView(paymentEvents(world().recorded()))!;
    expect(paymentView(state, { checkoutBaseUrl: CHECKOUT_BASE })).toMatchObject({
      status: 'pending',
      amount_received: 0,
      confirmed_at: null,
      country: 'NL',
      method: { amount: '100', from_address: SENDER, tx_hash: hash(1) },
      settlement: { amount: '100', tx_hash: hash(1) },
    });
    const checkout = checkoutView(foldCheckoutView(world().recorded().filter((e) => e.stream === 'checkout-chk_1'))!);
    expect(checkout).toMatchObject({ status: 'confirming', sent_at: '2025-03-01T10:02:00.000Z', confirmations: { current: 0, required: 4 } });
  });

  it('a transaction seen in the mempool: pending_tx_hash while it holds the quote, nothing counted; cleared once mined (then tx_hash) or dropped (0023 addendum, 2026-11-29)', () => {
    const w = opened();
    w.at(2 * MIN).checkout('chk_1', { type: 'SightTransfer', txHash: hash(1), network: 'ethereum', amount: '100' });
    expect(views(w).checkout).toMatchObject({ status: 'open', crypto: { pending_tx_hash: hash(1), tx_hash: null, received_amount: '0' } });
    w.at(20 * MIN).checkout('chk_1', { type: 'ExpireCheckout' }); // the quote's timer: held
    expect(views(w).checkout).toMatchObject({ status: 'open', crypto: { pending_tx_hash: hash(1) } });
    w.at(21 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(1), network: 'ethereum', amount: '100', fromAddress: SENDER });
    expect(views(w).checkout).toMatchObject({ status: 'confirming', crypto: { pending_tx_hash: null, tx_hash: hash(1), received_amount: '100' } });

    const dropped = opened();
    dropped.at(2 * MIN).checkout('chk_1', { type: 'SightTransfer', txHash: hash(2), network: 'ethereum', amount: '100' });
    dropped.at(3 * MIN).checkout('chk_1', { type: 'DropSighting', txHash: hash(2) });
    expect(views(dropped).checkout).toMatchObject({ status: 'open', crypto: { pending_tx_hash: null, tx_hash: null } });
    // dropped after the quote ended: expired, and nothing pending is shown
    dropped.at(4 * MIN).checkout('chk_1', { type: 'SightTransfer', txHash: hash(3), network: 'ethereum', amount: '100' });
    dropped.at(30 * MIN).checkout('chk_1', { type: 'DropSighting', txHash: hash(3) });
    expect(views(dropped).checkout).toMatchObject({ status: 'expired', crypto: { pending_tx_hash: null } });
  });

  it('a transfer on another network is shown against its own network\'s required; another transfer\'s confirmations leave the count shown alone (0025 addendum, 2026-11-29, own network; api audit M1)', () => {
    const w = opened();
    w.at(2 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(1), network: 'ethereum', amount: '100', fromAddress: SENDER });
    w.at(2 * MIN).checkout('chk_1', { type: 'RecordConfirmations', txHash: hash(1), current: 2 });
    expect(views(w).checkout).toMatchObject({ status: 'confirming', confirmations: { current: 2, required: 4 } });
    w.at(3 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(2), network: 'polygon', amount: '5', fromAddress: SENDER });
    expect(views(w).checkout).toMatchObject({ status: 'needs_review', crypto: { detected_network: 'polygon', tx_hash: hash(2) }, confirmations: { current: 0, required: 32 } });
    w.at(4 * MIN).checkout('chk_1', { type: 'RecordConfirmations', txHash: hash(1), current: 4 });
    expect(views(w).checkout).toMatchObject({ confirmations: { current: 0, required: 32 } });
    w.at(5 * MIN).checkout('chk_1', { type: 'RecordConfirmations', txHash: hash(2), current: 7 });
    expect(views(w).checkout).toMatchObject({ confirmations: { current: 7, required: 32 } });
    // withdrawn, the polygon transfer is shown no more: the ethereum one is, against the quote's 4
    w.at(6 * MIN).checkout('chk_1', { type: 'WithdrawTransfer', txHash: hash(2) });
    expect(views(w).checkout).toMatchObject({ crypto: { tx_hash: hash(1) }, confirmations: { required: 4 } });
  });

  it('a failed payment claimed and then accepted: succeeded with no failure_code or failure_message, on the payment and its receipt; while failed it has them (decision 0012 addendum, 2026-11-29)', () => {
    const w = new World();
    w.at(0).create('pmt_1', { expiresAt: iso(60 * MIN) });
    w.at(MIN).open('chk_1', 'pmt_1');
    w.at(16 * MIN).checkout('chk_1', { type: 'ExpireCheckout' });
    w.at(60 * MIN).payment('pmt_1', { type: 'ExpirePayment' });
    const failed = views(w);
    expect(failed.payment).toMatchObject({ status: 'failed', failure_code: expect.any(String), failure_message: expect.any(String) });
    expect(failed.receipt).toMatchObject({ status: 'failed', failure_code: failed.payment.failure_code });
    w.checkout('chk_1', { type: 'ClaimCheckout', txHash: hash(1), paymentSucceeded: false });
    expect(views(w).payment).toMatchObject({ status: 'needs_review', failure_code: null, failure_message: null });
    w.payment('pmt_1', { type: 'AcceptPayment' });
    const accepted = views(w);
    expect(accepted.payment).toMatchObject({ status: 'succeeded', failure_code: null, failure_message: null }); // kept the expiry's code before
    expect(accepted.receipt).toMatchObject({ status: 'succeeded', failure_code: null });
    expect(accepted.payment.events.map((e) => e.type)).toContain('expired'); // the timeline still tells it
  });

  it('a late transfer in review, then accepted: the timeline tells needs_review (why, on which checkout and transfer) and accepted (what was counted, by whom) between detected and succeeded (ops audit F4, decision 0012 addendum 2026-11-30)', () => {
    const w = opened();
    w.at(2 * MIN).send('chk_1', 'late', hash(1));
    w.at(3 * MIN).confirm('chk_1', hash(1));
    w.at(10 * MIN).payment('pmt_1', { type: 'AcceptPayment' });
    const actor = { kind: 'api_key', id: 'key_1', name: 'Back office' };
    const log = paymentStream(w.recorded()).map((e) => (e.type === 'PaymentAccepted' ? { ...e, metadata: { ...e.metadata, actor } } : e));
    const payment = paymentView(foldPaymentView(log)!, { checkoutBaseUrl: CHECKOUT_BASE });
    expect(payment).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    expect(payment.events.map((e) => e.type)).toEqual(['created', 'method_selected', 'detected', 'needs_review', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'accepted', 'succeeded']);
    expect(payment.events[3]).toEqual({ type: 'needs_review', created_at: iso(2 * MIN), data: { reason: 'late', checkout_id: 'chk_1', tx_hash: hash(1), attempt_id: null } });
    expect(payment.events[8]).toEqual({ type: 'accepted', created_at: iso(10 * MIN), data: { counted_amount: '100', actor } });
    // an acceptance whose event names no actor (recorded before actors were): the system's
    expect(views(w).payment.events.find((e) => e.type === 'accepted')?.data).toEqual({ counted_amount: '100', actor: { kind: 'system', id: null, name: null } });
  });

  it('a claim: not on the receipt while in review (the customer’s word only); accepted → the claimed transfer is the receipt’s transaction and its one transfer, at the quoted amount (audit L5)', () => {
    const w = new World();
    w.at(0).create('pmt_1', { expiresAt: iso(60 * MIN) });
    w.at(MIN).open('chk_1', 'pmt_1');
    w.at(16 * MIN).checkout('chk_1', { type: 'ExpireCheckout' });
    w.checkout('chk_1', { type: 'ClaimCheckout', txHash: hash(1), paymentSucceeded: false });
    expect(views(w).receipt).toMatchObject({ status: 'needs_review', transaction: null, transfers: [] });
    w.payment('pmt_1', { type: 'AcceptPayment' });
    const { receipt, payment } = views(w);
    const method = payment.method!;
    const quoted = method.expected_amount;
    expect(receipt).toMatchObject({ status: 'succeeded', transaction: { hash: hash(1) }, received_amount: quoted });
    expect(receipt.transfers).toEqual([{ hash: hash(1), network: method.network, asset: method.asset, url: expect.any(String), amount: quoted }]);
  });

  it('an event delivered twice (a replayed batch) does not add a transfer or a checkout twice', () => {
    const log = paymentEvents(world().recorded());
    const once = foldPaymentView(log)!;
    const detected = log.find((e) => e.type === 'PaymentTransferDetected')!;
    const opened = log.find((e) => e.type === 'CheckoutOpened')!;
    const twice = foldPaymentView([detected, opened], once)!;
    expect(twice.transfers).toEqual(once.transfers);
    expect(twice.checkouts).toEqual(once.checkouts);
  });

  it("ignores another payment's checkout and events before the payment exists", () => {
    const log = world().recorded();
    const state = foldPaymentView(paymentStream(log))!;
    const foreign = { ...log.find((e) => e.type === 'CheckoutOpened')!, data: { ...(log.find((e) => e.type === 'CheckoutOpened')!.data as object), payment_id: 'pmt_2', checkout_id: 'chk_9' } };
    expect(foldPaymentView([foreign], state)).toBe(state);
    expect(foldPaymentView(log.filter((e) => e.stream === 'payment-pmt_1' && e.type !== 'PaymentCreated'))).toBeNull();
    expect(foldCheckoutView(log.filter((e) => e.stream === 'checkout-chk_1' && e.type !== 'CheckoutOpened'))).toBeNull();
  });

  it('explorer links come from the registry given (a deployment may override explorers)', () => {
    const state = foldPaymentView(paymentEvents(world().recorded()))!;
    const registry = createRegistry({ explorers: { ethereum: { tx: 'https://explorer.example.test/tx/{hash}' } } });
    expect(paymentView(state, { checkoutBaseUrl: CHECKOUT_BASE, registry }).method!.explorer_url).toBe(`https://explorer.example.test/tx/${hash(1)}`);
  });

  it('a hash that does not fit the network (a simulated id) has no explorer link', () => {
    const w = opened();
    w.at(2 * MIN).send('chk_1', 'exact', 'sim_tx_1');
    const state = foldPaymentView(paymentEvents(w.recorded()))!;
    expect(paymentView(state, { checkoutBaseUrl: CHECKOUT_BASE }).method).toMatchObject({ tx_hash: 'sim_tx_1', explorer_url: null });
  });

  it('a transfer to a superseded quote in another coin is read in its own coin, never in the current quote\'s (audit, 2026-11-28)', () => {
    // USDC quote, then an ETH quote that supersedes it; the customer pays the USDC one (it becomes
    // the method again), then the ETH one too: 18 decimals of ETH must not be parsed as USDC's 6
    const w = paidTwoQuotesInTwoCoins();
    const log = w.recorded();
    const detected = log.filter((e) => e.type === 'PaymentTransferDetected').map((e) => e.data as { amount: string; review: string | null });
    expect(detected).toEqual([expect.objectContaining({ amount: '100', review: null }), expect.objectContaining({ amount: '0.033333333333333334', review: 'superseded_quote' })]);
    const state = foldPaymentView(paymentEvents(log))!;
    const view = paymentView(state, { checkoutBaseUrl: CHECKOUT_BASE });
    expect(view).toMatchObject({ status: 'needs_review', method: { asset: 'USDC', amount: '100', expected_amount: '100', overpaid_amount: null, tx_hash: hash(1) }, settlement: { asset: 'USDC', amount: '100', tx_hash: hash(1) } });
    // folded from the payment stream alone (the webhook outbox's way) it reads the same
    expect(views(w).payment).toEqual(view);
  });

  it('folded from the payment stream alone, events stored before addresses were recorded still read a superseded quote\'s transfer in its coin (review, 2026-11-28)', () => {
    const w = paidTwoQuotesInTwoCoins();
    // the payment stream as an older version wrote it: PaymentMethodSelected without address, wallet or country
    const old = paymentStream(w.recorded()).map((e) => (e.type === 'PaymentMethodSelected' ? { ...e, data: Object.fromEntries(Object.entries(e.data as object).filter(([k]) => !['address', 'wallet_id', 'address_index', 'country'].includes(k))) } : e));
    const view = paymentView(foldPaymentView(old)!, { checkoutBaseUrl: CHECKOUT_BASE });
    expect(view).toMatchObject({ status: 'needs_review', method: { asset: 'USDC', amount: '100' }, settlement: { asset: 'USDC', amount: '100', address: null } });
  });

  it('money detected after the payment succeeded (accepted short, then topped up) is in the timeline, never in the method or the settlement (audit, 2026-11-28)', () => {
    const w = sentAndConfirmed('underpaid');
    w.at(4 * MIN).payment('pmt_1', { type: 'AcceptPayment' });
    const accepted = views(w).payment;
    expect(accepted).toMatchObject({ status: 'succeeded', amount_received: 9_000, method: { amount: '90' }, settlement: { amount: '90', tx_hash: hash(1) } });
    // accepted, the short checkout asks for no more: it completed with what it had (0012 addendum, 2026-11-29, paid)
    expect(views(w).checkout).toMatchObject({ status: 'completed', crypto: { received_amount: '90', remaining_amount: null, remaining_payment_uri: null } });
    w.at(5 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(2), network: 'ethereum', amount: '10', fromAddress: SENDER }); // the customer topped it up all the same
    const later = views(w).payment;
    expect(later).toMatchObject({ status: 'succeeded', amount_received: 9_000, method: { amount: '90', tx_hash: hash(1) }, settlement: { amount: '90', tx_hash: hash(1) } });
    expect(later.events.at(-1)).toMatchObject({ type: 'detected', data: { tx_hash: hash(2) } });
  });

  it('a second transfer to a completed checkout after success (0025 addendum, 2026-11-28): listed and in the timeline at once; counted in received, overpaid and the settlement once final; the status stays succeeded', () => {
    const w = sentAndConfirmed('exact');
    expect(views(w).payment).toMatchObject({ status: 'succeeded', amount_received: 10_000, method: { amount: '100', overpaid_amount: null }, settlement: { amount: '100' } });
    // a chain watcher reports another 5 USDC to the completed checkout's address
    w.at(10 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(2), network: 'ethereum', amount: '5', fromAddress: SENDER });
    const detected = views(w);
    expect(detected.payment).toMatchObject({ status: 'succeeded', amount_received: 10_000, method: { amount: '100', overpaid_amount: null }, settlement: { amount: '100', tx_hash: hash(1) } });
    expect(detected.payment.events.at(-1)).toMatchObject({ type: 'detected', data: { amount: '5', network: 'ethereum', tx_hash: hash(2) } });
    expect(detected.receipt.transfers.map((t) => [t.hash, t.amount])).toEqual([[hash(1), '100'], [hash(2), '5']]);
    expect(detected.checkout).toMatchObject({ status: 'completed', crypto: { received_amount: '105', overpaid_amount: '5', remaining_payment_uri: null }, confirmations: { current: 0, required: 4 } });
    // withdrawn by a reorganisation before it is final: everything as it was at success
    w.at(10 * MIN + 30_000).confirm('chk_1', hash(2), 2).checkout('chk_1', { type: 'WithdrawTransfer', txHash: hash(2) });
    const withdrawn = views(w);
    expect(withdrawn.payment).toMatchObject({ status: 'succeeded', method: { amount: '100', overpaid_amount: null }, settlement: { amount: '100' } });
    expect(withdrawn.payment.events.at(-1)).toMatchObject({ type: 'withdrawn', data: { tx_hash: hash(2) } });
    expect(withdrawn.receipt.transfers.map((t) => t.hash)).toEqual([hash(1)]);
    expect(withdrawn.checkout).toMatchObject({ status: 'completed', crypto: { received_amount: '100', overpaid_amount: null, tx_hash: hash(1) }, confirmations: { current: 4, required: 4 } });
    // sent again (the same hash in another block): counted once final
    w.at(10 * MIN + 40_000).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(2), network: 'ethereum', amount: '5', fromAddress: SENDER });
    w.at(11 * MIN).confirm('chk_1', hash(2));
    const final = views(w);
    expect(final.payment).toMatchObject({
      status: 'succeeded',
      amount_received: 10_000,
      confirmed_at: iso(3 * MIN),
      method: { amount: '105', overpaid_amount: '5', tx_hash: hash(1) },
      settlement: { amount: '105', tx_hash: hash(1) },
    });
    expect(final.payment.events.filter((e) => e.type === 'succeeded')).toHaveLength(1);
    expect(final.receipt).toMatchObject({ status: 'succeeded', received_amount: '105', overpaid_amount: '5', transaction: { hash: hash(1) } });
    expect(final.receipt.transfers).toHaveLength(2);
    expect(final.checkout).toMatchObject({ status: 'completed', crypto: { received_amount: '105', overpaid_amount: '5' }, confirmations: { current: 4, required: 4 } });
  });

  describe('a transfer to a checkout in review, or on another network to one that completed (0025 addendum, 2026-11-28, second)', () => {
    const polygon = (w: World, txHash: string, amount: string) => w.checkout('chk_1', { type: 'DetectTransfer', txHash, network: 'polygon', amount, fromAddress: SENDER });
    const ethereum = (w: World, txHash: string, amount: string) => w.checkout('chk_1', { type: 'DetectTransfer', txHash, network: 'ethereum', amount, fromAddress: SENDER });

    it('wrong network first, then the quoted amount on the quoted network: the payment (in review) and the receipt list both with their networks; the checkout, in review, received it', () => {
      const w = opened();
      polygon(w.at(2 * MIN), hash(1), '100');
      ethereum(w.at(3 * MIN), hash(2), '100');
      w.at(4 * MIN).confirm('chk_1', hash(2));
      const { payment, receipt, checkout } = views(w);
      expect(payment).toMatchObject({ status: 'needs_review', amount_received: 0, confirmed_at: null });
      expect(payment.events.map((e) => e.type)).toEqual(['created', 'method_selected', 'detected', 'needs_review', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation']);
      expect(payment.events.filter((e) => e.type === 'detected').map((e) => e.data)).toEqual([
        { amount: '100', network: 'polygon', tx_hash: hash(1) },
        { amount: '100', network: 'ethereum', tx_hash: hash(2) },
      ]);
      expect(receipt.transfers.map((t) => [t.hash, t.network, t.amount])).toEqual([[hash(1), 'polygon', '100'], [hash(2), 'ethereum', '100']]);
      expect(receipt).toMatchObject({ status: 'needs_review', paid_at: null, transaction: { hash: hash(1) } });
      // what reached its address on both networks, as the payment's method and the receipt say (M2, 2026-11-29); not counted as overpaid while in review, as on the payment
      expect(checkout).toMatchObject({ status: 'needs_review', review_reason: 'wrong_network', crypto: { received_amount: '200', remaining_amount: null, remaining_payment_uri: null, overpaid_amount: null, tx_hash: hash(2) }, confirmations: { current: 4, required: 4 } });
      expect([payment.method?.amount, payment.method?.overpaid_amount, receipt.received_amount, receipt.overpaid_amount]).toEqual(['200', null, '200', null]);
    });

    it('given a short transfer awaiting the rest, when the rest arrives on another network, then the checkout received both (not 90 alone), nothing left to pay, as the payment and the receipt; accepted, the same (outside audit M2, 2026-11-29)', () => {
      const w = sentAndConfirmed('underpaid'); // 90 of 100 on ethereum
      polygon(w.at(5 * MIN), hash(2), '10');
      let { payment, receipt, checkout } = views(w);
      expect(checkout).toMatchObject({ status: 'needs_review', review_reason: 'wrong_network', crypto: { received_amount: '100', remaining_amount: null, remaining_payment_uri: null, overpaid_amount: null, detected_network: 'polygon' } });
      expect([payment.method?.amount, receipt.received_amount]).toEqual(['100', '100']);
      w.at(10 * MIN).payment('pmt_1', { type: 'AcceptPayment' });
      ({ payment, receipt, checkout } = views(w));
      expect(payment).toMatchObject({ status: 'succeeded', amount_received: 10_000, method: { amount: '100', overpaid_amount: null } });
      expect(checkout).toMatchObject({ status: 'completed', crypto: { received_amount: '100', remaining_amount: null, overpaid_amount: null } });
      expect(receipt.received_amount).toBe('100');
    });

    it('given more than the quote on another network, then overpaid_amount is not counted while in review (as the payment), and is once accepted (as the payment) (M2)', () => {
      const w = opened();
      polygon(w.at(2 * MIN), hash(1), '110');
      let { payment, checkout } = views(w);
      expect(checkout).toMatchObject({ status: 'needs_review', crypto: { received_amount: '110', remaining_amount: null, overpaid_amount: null } });
      expect(payment.method).toMatchObject({ amount: '110', overpaid_amount: null });
      w.at(10 * MIN).payment('pmt_1', { type: 'AcceptPayment' });
      ({ payment, checkout } = views(w));
      expect(payment.method).toMatchObject({ amount: '110', overpaid_amount: '10' });
      expect(checkout).toMatchObject({ status: 'completed', crypto: { received_amount: '110', remaining_amount: null, overpaid_amount: '10' } });
    });

    it('given a remainder checkout, when the rest arrives on another network, then the remainder checkout received it (not "0"), as the payment and the receipt (M2)', () => {
      const w = sentAndConfirmed('underpaid');
      w.at(20 * MIN).checkout('chk_1', { type: 'ExpireCheckout' }).payment('pmt_1', { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true });
      w.at(21 * MIN).send('chk_2', 'wrong_network', hash(2));
      const remainder = checkoutView(foldCheckoutView(w.recorded().filter((e) => e.stream === 'checkout-chk_2'))!);
      expect(remainder).toMatchObject({ remainder: true, status: 'needs_review', review_reason: 'wrong_network', crypto: { amount: '10', received_amount: '10', remaining_amount: null, detected_network: 'polygon' } });
      const { payment, receipt } = views(w);
      expect([payment.method?.amount, receipt.received_amount]).toEqual(['100', '100']);
      expect(receipt.transfers.map((t) => [t.network, t.amount])).toEqual([['ethereum', '90'], ['polygon', '10']]);
    });

    it('claimed, then all that is due arrives at the claimed checkout: the payment succeeded on it (paid_at set), the checkout completed with no review left', () => {
      const w = opened();
      w.at(16 * MIN).checkout('chk_1', { type: 'ExpireCheckout' }).checkout('chk_1', { type: 'ClaimCheckout', txHash: hash(1), paymentSucceeded: false });
      expect(views(w).checkout).toMatchObject({ status: 'needs_review', review_reason: 'claimed' });
      ethereum(w.at(20 * MIN), hash(2), '100');
      w.at(21 * MIN).confirm('chk_1', hash(2));
      const { payment, receipt, checkout } = views(w);
      expect(payment).toMatchObject({ status: 'succeeded', amount_received: 10_000, confirmed_at: iso(21 * MIN), method: { amount: '100', overpaid_amount: null, tx_hash: hash(2) }, settlement: { amount: '100', tx_hash: hash(2) } });
      expect(payment.events.map((e) => e.type)).toEqual(['created', 'method_selected', 'claimed', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'succeeded']);
      expect(receipt).toMatchObject({ status: 'succeeded', received_amount: '100', paid_at: iso(21 * MIN), transfers: [{ hash: hash(2), network: 'ethereum', amount: '100' }] });
      expect(checkout).toMatchObject({ status: 'completed', review_reason: null, crypto: { received_amount: '100', tx_hash: hash(2) } });
    });

    it('in review (wrong network), then accepted: the checkout completes with its review reason kept and nothing left to pay; the payment shows the review and the acceptance, no entry for the checkout (0025 addendum, 2026-11-29; 0012 addendum, 2026-11-30)', () => {
      const w = opened();
      polygon(w.at(2 * MIN), hash(1), '100');
      // the quote arrived on polygon: received there, nothing left to send (M2, 2026-11-29)
      expect(views(w).checkout).toMatchObject({ status: 'needs_review', review_reason: 'wrong_network', crypto: { received_amount: '100', remaining_amount: null, overpaid_amount: null } });
      w.at(10 * MIN).payment('pmt_1', { type: 'AcceptPayment' });
      const { payment, checkout } = views(w);
      expect(payment).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
      expect(payment.events.map((e) => e.type)).toEqual(['created', 'method_selected', 'detected', 'needs_review', 'accepted', 'succeeded']);
      expect(checkout).toMatchObject({ status: 'completed', review_reason: 'wrong_network', failure_code: null, updated_at: iso(10 * MIN), crypto: { received_amount: '100', remaining_amount: null, remaining_payment_uri: null, overpaid_amount: null, tx_hash: hash(1), detected_network: 'polygon' } });
      expect([payment.method?.amount, views(w).receipt.received_amount]).toEqual(['100', '100']);
    });

    it('claimed on the first quote, then the payment paid in full on its remainder: the claimed checkout failed with payment_succeeded, its claim kept (0025 addendum, 2026-11-29)', () => {
      const w = sentAndConfirmed('underpaid');
      w.at(20 * MIN).checkout('chk_1', { type: 'ExpireCheckout' }).payment('pmt_1', { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true });
      w.at(21 * MIN).checkout('chk_1', { type: 'ClaimCheckout', txHash: hash(3), paymentSucceeded: false });
      expect(views(w).checkout).toMatchObject({ status: 'needs_review', review_reason: 'claimed' });
      w.at(22 * MIN).send('chk_2', 'exact', hash(2));
      w.at(23 * MIN).confirm('chk_2', hash(2));
      const { payment, checkout } = views(w);
      expect(payment).toMatchObject({ status: 'succeeded' });
      expect(checkout).toMatchObject({ status: 'failed', failure_code: 'payment_succeeded', review_reason: 'claimed', updated_at: iso(23 * MIN) });
    });

    it('completed, then a transfer on another network: listed on the payment and the receipt with its network, never in the method or the settlement; the checkout stays completed', () => {
      const w = sentAndConfirmed('exact');
      polygon(w.at(10 * MIN), hash(2), '5');
      w.at(11 * MIN).confirm('chk_1', hash(2));
      const { payment, receipt, checkout } = views(w);
      expect(payment).toMatchObject({ status: 'succeeded', amount_received: 10_000, confirmed_at: iso(3 * MIN), method: { network: 'ethereum', amount: '100', overpaid_amount: null, tx_hash: hash(1) }, settlement: { network: 'ethereum', amount: '100', tx_hash: hash(1) } });
      expect(payment.events.filter((e) => e.type === 'detected').at(-1)).toMatchObject({ data: { amount: '5', network: 'polygon', tx_hash: hash(2) } });
      expect(payment.events.filter((e) => e.type === 'succeeded')).toHaveLength(1);
      expect(receipt).toMatchObject({ status: 'succeeded', received_amount: '100', overpaid_amount: null, crypto: { network: 'ethereum' }, transaction: { hash: hash(1) } });
      expect(receipt.transfers.map((t) => [t.hash, t.network, t.amount])).toEqual([[hash(1), 'ethereum', '100'], [hash(2), 'polygon', '5']]);
      expect(checkout).toMatchObject({ status: 'completed', review_reason: null, crypto: { received_amount: '100', overpaid_amount: null, detected_network: 'polygon', tx_hash: hash(2) } });
    });
  });

  it('one transaction paying two checkouts of the payment (0025 addendum, 2026-11-28, third): the payment and the receipt list both outputs under the one hash, each with its amount; confirmations and a withdrawal each reach their own', () => {
    const w = oneTransactionTwoCheckouts();
    const detected = views(w);
    expect(detected.payment).toMatchObject({ status: 'needs_review', method: { asset: 'USDC', amount: '100', expected_amount: '100', tx_hash: hash(7) }, settlement: { amount: '100', tx_hash: hash(7) } });
    expect(detected.payment.events.filter((e) => e.type === 'detected').map((e) => e.data)).toEqual([
      { amount: '60', network: 'ethereum', tx_hash: hash(7) },
      { amount: '40', network: 'ethereum', tx_hash: hash(7) },
    ]);
    expect(detected.receipt).toMatchObject({ received_amount: '100', transaction: { hash: hash(7) } });
    expect(detected.receipt.transfers.map((t) => [t.hash, t.network, t.amount])).toEqual([[hash(7), 'ethereum', '60'], [hash(7), 'ethereum', '40']]);

    // each checkout's confirmations reach its own output
    w.at(3 * MIN).confirm('chk_1', hash(7), 2).confirm('chk_2', hash(7), 1);
    expect(views(w).state.transfers.map((t) => [t.checkout_id, t.amount, t.review, t.confirmations.current])).toEqual([
      ['chk_1', '60', null, 2],
      ['chk_2', '40', 'superseded_quote', 1],
    ]);
    // a reorganisation: the second checkout's withdrawal takes its output only
    w.at(4 * MIN).checkout('chk_2', { type: 'WithdrawTransfer', txHash: hash(7) });
    const withdrawn = views(w);
    expect(withdrawn.state.transfers.map((t) => [t.checkout_id, t.amount, t.confirmations.current])).toEqual([['chk_1', '60', 2]]);
    expect(withdrawn.payment).toMatchObject({ method: { amount: '60' }, settlement: { amount: '60', tx_hash: hash(7) } });
    expect(withdrawn.payment.events.at(-1)).toMatchObject({ type: 'withdrawn', data: { amount: '40', tx_hash: hash(7) } });
    expect(withdrawn.receipt.transfers.map((t) => [t.hash, t.amount])).toEqual([[hash(7), '60']]);
  });

  describe('a card charged late, under review (card audit, 2026-11-28)', () => {
    const openCard = (w: World, checkoutId: string) =>
      w.checkout(checkoutId, {
        type: 'OpenCardCheckout', checkoutId, paymentId: 'pmt_1', linkId: null, simulated: true, currency: 'USD', priceMinor: 10_000,
        feePayer: 'business', feeRateBps: 100, routes: ['simulated_a', 'simulated_b'], attemptTtlMs: 10 * MIN,
      });
    const startAttempt = (w: World, checkoutId: string, attemptId: string, expiresAt: string) =>
      w.checkout(checkoutId, { type: 'StartCardAttempt', attemptId, processor: 'simulated_a', ref: `ref_${attemptId}`, secureUrl: `https://pay.example/${attemptId}`, expiresAt });
    const charged = (w: World, checkoutId: string, attemptId: string) =>
      w.checkout(checkoutId, { type: 'RecordCardResult', attemptId, result: { status: 'succeeded', brand: 'visa', last4: '4242', amountMinor: 10_000, currency: 'USD' } });

    it('a payment paid in crypto keeps its crypto method, settlement and receipt when a card left open on another checkout is charged after', () => {
      // the customer starts a card attempt, goes back and pays in USDC; later submits the card page too
      const w = new World();
      w.at(0).create('pmt_1');
      openCard(w.at(MIN), 'chk_card');
      startAttempt(w, 'chk_card', 'att_1', iso(11 * MIN));
      w.at(2 * MIN).open('chk_1', 'pmt_1');
      w.at(3 * MIN).send('chk_1', 'exact', hash(1));
      w.at(4 * MIN).confirm('chk_1', hash(1));
      const paid = views(w);
      expect(paid.payment).toMatchObject({ status: 'succeeded', method: { rail: 'crypto', asset: 'USDC', amount: '100', tx_hash: hash(1), card: null }, settlement: { asset: 'USDC', amount: '100', tx_hash: hash(1) } });
      // the paid payment ended its card checkout (addendum 2026-11-28, later): the page can no longer be a second `completed`
      expect(w.h.checkoutState('chk_card')).toMatchObject({ status: 'failed', failureCode: 'payment_succeeded' });
      expect(paid.payment.events.map((e) => e.type)).not.toContain('card_charged');
      charged(w.at(5 * MIN), 'chk_card', 'att_1');
      const after = views(w);
      expect(after.payment).toMatchObject({ status: 'succeeded', amount_received: 10_000, checkout_id: 'chk_1', method: { rail: 'crypto', asset: 'USDC', amount: '100', tx_hash: hash(1), card: null }, settlement: { asset: 'USDC', amount: '100', tx_hash: hash(1) } });
      expect(after.receipt).toMatchObject({ rail: 'crypto', crypto: { asset: 'USDC', network: 'ethereum', amount: '100' }, received_amount: '100', transaction: { hash: hash(1) } });
      // the money to refund is on the checkout (in review) and on the payment's timeline
      expect(w.h.checkoutState('chk_card')).toMatchObject({ status: 'needs_review', reviewReason: 'paid_after_close' });
      expect(after.payment.events.at(-1)).toEqual({ type: 'card_charged', created_at: iso(5 * MIN), data: { checkout_id: 'chk_card', attempt_id: 'att_1', amount: 10_000, currency: 'USD', review_reason: 'paid_after_close' } });
    });

    it('a charge under review on a payment nothing else paid is still its method (what accepting it counts)', () => {
      const w = new World();
      w.at(0).create('pmt_1');
      openCard(w.at(MIN), 'chk_card');
      startAttempt(w, 'chk_card', 'att_1', iso(11 * MIN));
      w.at(2 * MIN).checkout('chk_card', { type: 'CancelCheckout' });
      w.at(2 * MIN + 1000).open('chk_1', 'pmt_1'); // a crypto quote on screen, nothing sent to it
      charged(w.at(3 * MIN), 'chk_card', 'att_1'); // paid on the secure page left open: paid_after_cancel
      const review = views(w);
      expect(review.payment).toMatchObject({ status: 'needs_review', method: { rail: 'card', card: { processor: 'simulated_a', brand: 'visa', last4: '4242' } }, settlement: null });
      expect(review.receipt).toMatchObject({ rail: 'card', crypto: null, received_amount: '100' });
    });
  });

  it('payment url and failure messages', () => {
    const state = foldPaymentView(paymentEvents(world().recorded()))!;
    expect(paymentUrl(state, 'https://pay.example.test/c///')).toBe('https://pay.example.test/c/code_pmt_1');
    expect(paymentUrl({ ...state, link_id: 'lnk_1' }, CHECKOUT_BASE)).toBeNull();
    expect(paymentFailureMessage(null)).toBeNull();
    expect(paymentFailureMessage('payment_expired')).toBe('The payment expired before it was paid.');
    expect(paymentFailureMessage('something_new')).toBe('The payment failed (something_new).');
  });
});
