import { businessesProjector } from '@lib/businesses';
import { assetOn, createRegistry } from '@lib/chains';
import { Database, connectPostgres } from '@lib/database';
import { RecordedEvent } from '@lib/eventstore';
import {
  PaymentView,
  PaymentViewState,
  PaymentsReadModel,
  checkoutView,
  foldCheckoutView,
  foldPaymentView,
  paymentView,
  paymentsProjector,
} from '../../../libs/payments/src/read';
import { REMAINDER_ADDRESS } from '../harness';
import { TestDatabase, createTestDatabase } from '../../support/postgres';
import { BIZ_A, BIZ_B, CHECKOUT_BASE, CLAIM_HASH, HOUR, MIN, SENDER, World, businessCreated, hash, iso, scenarios } from './fixtures';

/**
 * The spec §2 Payment, Checkout and Receipt objects the read model answers, for the main
 * scenarios, projected into a real PostgreSQL database from realistic event sequences (the
 * harness: deciders + process manager). Every time shown is the business clock (occurredAt), a
 * day ahead of the log's recordedAt.
 */

const USDC_ETHEREUM = assetOn('USDC', 'ethereum').contract!;
const etherscan = (h: string) => `https://etherscan.io/tx/${h}`;

let database: TestDatabase;
let db: Database;
let read: PaymentsReadModel;
let world: World;
let log: RecordedEvent[];

beforeAll(async () => {
  database = await createTestDatabase('pay_read');
  db = connectPostgres(database.url);
  await db.exec(paymentsProjector.schema);
  await db.exec(businessesProjector.schema);
  world = scenarios();
  log = world.recorded();
  await db.transaction((tx) => paymentsProjector.handle(log, tx));
  await db.transaction((tx) => businessesProjector.handle([businessCreated(BIZ_A, 'Acme Shop', 'https://acme.example.test', 'help@acme.example.test', 1)], tx));
  // a trailing slash on the base is not doubled
  read = new PaymentsReadModel(db, { checkoutBaseUrl: `${CHECKOUT_BASE}/` });
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
});

const at = (hourIndex: number, minutes: number) => iso(hourIndex * HOUR + minutes * MIN);
const types = (view: PaymentView) => view.events.map((e) => e.type);
const confirmations = (minutesAt: string) => [1, 2, 3, 4].map((current) => ({ type: 'confirmation', created_at: minutesAt, data: { current, required: 4 } }));

describe('payment view', () => {
  it('succeeded: every §2 field, the timeline oldest first at the business clock, url from the base', async () => {
    const view = await read.getPayment(BIZ_A, 'pmt_ok');
    expect(view).toEqual({
      kind: 'payment',
      id: 'pmt_ok',
      status: 'succeeded',
      amount: 10_000,
      currency: 'USD',
      fee_payer: 'business',
      customer_fee: 0,
      amount_received: 10_000,
      reporting: { currency: 'USD', amount: 10_000, fee: 100, transaction_fee: 0, customer_fee: 0, net: 9_900 },
      fee_rate_bps: 100,
      method: {
        rail: 'crypto',
        asset: 'USDC',
        network: 'ethereum',
        amount: '100',
        expected_amount: '100',
        overpaid_amount: null,
        from_address: SENDER,
        tx_hash: hash(1),
        explorer_url: etherscan(hash(1)),
        card: null,
      },
      settlement: {
        destination: 'wallet',
        asset: 'USDC',
        network: 'ethereum',
        amount: '100',
        wallet_id: null,
        address: world.addressOf.get('chk_ok'),
        tx_hash: hash(1),
        explorer_url: etherscan(hash(1)),
      },
      customer_id: 'cst_1',
      link_id: null,
      url: `${CHECKOUT_BASE}/code_pmt_ok`,
      reference: 'ref-ok',
      metadata: { order: 'o-1b', channel: 'web' },
      success_url: 'https://shop.example.test/thanks',
      cancel_url: 'https://shop.example.test/cart',
      expires_at: null,
      canceled_at: null,
      confirmed_at: at(0, 3),
      checkout_id: 'chk_ok',
      description: 'Order of pmt_ok',
      country: 'DE',
      failure_code: null,
      failure_message: null,
      created_at: at(0, 0),
      updated_at: at(0, 4),
      events: [
        { type: 'created', created_at: at(0, 0), data: null },
        { type: 'method_selected', created_at: at(0, 1), data: { rail: 'crypto', asset: 'USDC', network: 'ethereum' } },
        { type: 'detected', created_at: at(0, 2), data: { amount: '100', network: 'ethereum', tx_hash: hash(1) } },
        ...confirmations(at(0, 3)),
        { type: 'succeeded', created_at: at(0, 3), data: null },
      ],
    });
  });

  it('underpaid → remainder → succeeded: remainder_requested and remainder_paid in the timeline, the remainder checkout current', async () => {
    const view = (await read.getPayment(BIZ_A, 'pmt_under'))!;
    expect(types(view)).toEqual([
      'created', 'method_selected', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'underpaid',
      'remainder_requested', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'remainder_paid', 'succeeded',
    ]);
    expect(view.events.find((e) => e.type === 'underpaid')).toEqual({ type: 'underpaid', created_at: at(1, 3), data: { expected: '100', received: '90' } });
    expect(view.events.find((e) => e.type === 'remainder_requested')).toEqual({
      type: 'remainder_requested',
      created_at: at(1, 21),
      data: { checkout_id: 'chk_under2', amount: 1_000, currency: 'USD' },
    });
    expect(view.events.find((e) => e.type === 'remainder_paid')).toEqual({ type: 'remainder_paid', created_at: at(1, 23), data: { checkout_id: 'chk_under2', amount: '10' } });
    expect(view).toMatchObject({
      status: 'succeeded',
      amount_received: 10_000,
      checkout_id: 'chk_under2',
      country: 'FR', // the remainder checkout has none: the payment keeps its checkout's
      confirmed_at: at(1, 23),
      method: { amount: '100', expected_amount: '100', overpaid_amount: null, tx_hash: hash(2) },
      settlement: { network: 'ethereum', amount: '100', address: world.addressOf.get('chk_under'), tx_hash: hash(2) },
    });

    const first = (await read.getCheckout('chk_under', { secretFields: false }))!;
    expect(first).toMatchObject({ status: 'expired', remainder: false, expires_at: at(1, 17) }); // 15 minutes from the short transfer (detected 1:02), not its confirmation (decision 0009 addendum 2026-11-30)
    // paid through its remainder: the first quote asks for no more (0012 addendum, 2026-11-29, paid; api audit L3)
    expect(first.crypto).toMatchObject({ received_amount: '90', remaining_amount: null, remaining_payment_uri: null, tx_hash: hash(2) });
    const remainder = (await read.getCheckout('chk_under2', { secretFields: false }))!;
    expect(remainder).toMatchObject({ status: 'completed', remainder: true, amount: 1_000, currency: 'USD', payment_id: 'pmt_under' });
    expect(remainder.crypto).toMatchObject({
      amount: '10',
      address: REMAINDER_ADDRESS,
      payment_uri: `ethereum:${USDC_ETHEREUM}@1/transfer?address=${REMAINDER_ADDRESS}&uint256=10000000`,
      received_amount: '10',
      remaining_amount: null,
    });
  });

  it('underpaid (before the remainder): reporting computed from what arrived, the checkout offers the rest', () => {
    const upTo = log.findIndex((e) => e.type === 'PaymentUnderpaid');
    const prefix = log.slice(0, upTo + 1);
    const payment = foldPaymentView(prefix.filter((e) => e.stream === 'payment-pmt_under' || (e.type === 'CheckoutOpened' && (e.data as { payment_id: string }).payment_id === 'pmt_under')))!;
    expect(paymentView(payment, { checkoutBaseUrl: CHECKOUT_BASE })).toMatchObject({
      status: 'underpaid',
      amount_received: 9_000,
      reporting: { currency: 'USD', amount: 9_000, fee: 90, transaction_fee: 0, customer_fee: 0, net: 8_910 },
      method: { amount: '90', expected_amount: '100', overpaid_amount: null },
      settlement: { amount: '90' },
      confirmed_at: null,
    });
    const checkout = foldCheckoutView(prefix.filter((e) => e.stream === 'checkout-chk_under'))!;
    const view = checkoutView(checkout);
    expect(view.status).toBe('awaiting_customer');
    expect(view.crypto).toMatchObject({
      received_amount: '90',
      remaining_amount: '10',
      remaining_payment_uri: `ethereum:${USDC_ETHEREUM}@1/transfer?address=${world.addressOf.get('chk_under')}&uint256=10000000`,
    });
  });

  it('claimed after expiry → needs_review: the claimed hash (stored in lower case) in the timeline, nothing settled', async () => {
    const view = (await read.getPayment(BIZ_A, 'pmt_claim'))!;
    expect(view.status).toBe('needs_review');
    expect(view.events).toEqual([
      { type: 'created', created_at: at(2, 0), data: null },
      { type: 'method_selected', created_at: at(2, 1), data: { rail: 'crypto', asset: 'USDC', network: 'ethereum' } },
      { type: 'claimed', created_at: at(2, 18), data: { tx_hash: CLAIM_HASH, network: 'ethereum' } },
    ]);
    expect(view.method).toMatchObject({ amount: '0', tx_hash: CLAIM_HASH, explorer_url: etherscan(CLAIM_HASH), from_address: null });
    expect(view.settlement).toBeNull();
    expect(view.amount_received).toBe(0);
    const checkout = (await read.getCheckout('chk_claim', { secretFields: true }))!;
    expect(checkout).toMatchObject({ status: 'needs_review', review_reason: 'claimed', email: 'late@example.test', sent_at: null });
    expect(checkout.crypto).toMatchObject({ tx_hash: CLAIM_HASH, detected_network: null, received_amount: '0' });
  });

  it('canceled by the business: canceled_at, no failure, its open checkout failed', async () => {
    const view = (await read.getPayment(BIZ_A, 'pmt_cancel'))!;
    expect(view).toMatchObject({ status: 'canceled', canceled_at: at(3, 5), failure_code: null, failure_message: null, updated_at: at(3, 5), settlement: null });
    expect(types(view)).toEqual(['created', 'method_selected', 'canceled']);
    expect(await read.getCheckout('chk_cancel', { secretFields: false })).toMatchObject({ status: 'failed', failure_code: 'payment_canceled', updated_at: at(3, 5) });
  });

  it('expired: failed with payment_expired and its message; the timeline has expired then failed', async () => {
    const view = (await read.getPayment(BIZ_A, 'pmt_exp'))!;
    expect(view).toMatchObject({
      status: 'failed',
      failure_code: 'payment_expired',
      failure_message: 'The payment expired before it was paid.',
      expires_at: at(4, 59),
      canceled_at: null,
      confirmed_at: null,
    });
    expect(view.events.slice(2)).toEqual([
      { type: 'expired', created_at: at(4, 59), data: null },
      { type: 'failed', created_at: at(4, 59), data: { reason: 'expired' } },
    ]);
    expect(await read.getCheckout('chk_exp', { secretFields: false })).toMatchObject({ status: 'expired' });
  });

  it("a link payment whose checkout the customer canceled: failed (checkout_canceled), no url of its own", async () => {
    const view = (await read.getPayment(BIZ_A, 'pmt_link'))!;
    expect(view).toMatchObject({ status: 'failed', link_id: 'lnk_1', url: null, failure_code: 'checkout_canceled', failure_message: 'The customer canceled the checkout.' });
    expect(view.events[view.events.length - 1]).toEqual({ type: 'failed', created_at: at(5, 2), data: { reason: 'canceled' } });
    expect(await read.getCheckout('chk_link', { secretFields: false })).toMatchObject({ status: 'canceled', canceled_by: 'customer', link_id: 'lnk_1' });
  });

  it('wrong network then accepted: the method keeps the quote, the settlement and links name the network it landed on', async () => {
    const view = (await read.getPayment(BIZ_A, 'pmt_wrong'))!;
    expect(view).toMatchObject({
      status: 'succeeded',
      amount_received: 10_000,
      method: { network: 'ethereum', amount: '100', tx_hash: hash(5), explorer_url: `https://polygonscan.com/tx/${hash(5)}` },
      settlement: { network: 'polygon', amount: '100', tx_hash: hash(5) },
    });
    const checkout = (await read.getCheckout('chk_wrong', { secretFields: false }))!;
    // accepted: the checkout's review ended with the payment's, its reason kept (0025 addendum, 2026-11-29; before, it stayed in review)
    expect(checkout).toMatchObject({ status: 'completed', review_reason: 'wrong_network' });
    // what reached its address on polygon, as the payment and the receipt count it (M2, 2026-11-29)
    expect(checkout.crypto).toMatchObject({ network: 'ethereum', detected_network: 'polygon', received_amount: '100', remaining_amount: null, overpaid_amount: null, explorer_url: `https://polygonscan.com/tx/${hash(5)}` });
    expect((await read.getReceipt('pmt_wrong'))!.crypto).toEqual({ asset: 'USDC', network: 'polygon', amount: '100' });
  });

  it('overpaid with the fee on the customer: overpaid_amount, customer_fee, reporting from PaymentSucceeded', async () => {
    const view = (await read.getPayment(BIZ_A, 'pmt_over'))!;
    expect(view).toMatchObject({
      fee_payer: 'customer',
      customer_fee: 100,
      amount_received: 11_110,
      reporting: { currency: 'USD', amount: 11_110, fee: 110, transaction_fee: 0, customer_fee: 100, net: 11_000 },
      method: { amount: '111.1', expected_amount: '101', overpaid_amount: '10.1' },
    });
    const checkout = (await read.getCheckout('chk_over', { secretFields: false }))!;
    expect(checkout.breakdown).toEqual({ currency: 'USD', price: 10_000, processing_fee: 100, network_fee: null, total: 10_100 });
    expect(checkout.crypto).toMatchObject({ amount: '101', received_amount: '111.1', overpaid_amount: '10.1' });
  });

  it('a replacing checkout: the old one names it in replaced_by; the payment follows the new quote and its country', async () => {
    expect(await read.getCheckout('chk_rep1', { secretFields: false })).toMatchObject({ replaced_by: 'chk_rep2', status: 'open', updated_at: at(8, 2) });
    expect(await read.getCheckout('chk_rep2', { secretFields: false })).toMatchObject({ replaced_by: null, created_at: at(8, 2) });
    expect(await read.getPayment(BIZ_A, 'pmt_rep')).toMatchObject({ checkout_id: 'chk_rep2', country: 'AT', method: { network: 'base', amount: '0' }, settlement: null });
  });
});

describe('checkout view', () => {
  it('crypto checkout: every §2 field; payment_uri an EIP-681 token transfer; secret fields only when asked', async () => {
    const address = world.addressOf.get('chk_ok')!;
    const base = {
      kind: 'checkout',
      id: 'chk_ok',
      status: 'completed',
      rail: 'crypto',
      link_id: null,
      payment_id: 'pmt_ok',
      amount: 10_000,
      currency: 'USD',
      breakdown: { currency: 'USD', price: 10_000, processing_fee: null, network_fee: null, total: 10_000 },
      crypto: {
        asset: 'USDC',
        network: 'ethereum',
        amount: '100',
        address,
        payment_uri: `ethereum:${USDC_ETHEREUM}@1/transfer?address=${address}&uint256=100000000`,
        rate: { amount: 100, currency: 'USD', source: null, at: null },
        received_amount: '100',
        remaining_amount: null,
        remaining_payment_uri: null,
        overpaid_amount: null,
        detected_network: 'ethereum',
        tx_hash: hash(1),
        explorer_url: etherscan(hash(1)),
        pending_tx_hash: null,
      },
      card: null,
      confirmations: { current: 4, required: 4 },
      remainder: false,
      canceled_by: null,
      replaced_by: null,
      failure_code: null,
      review_reason: null,
      success_url: 'https://shop.example.test/thanks',
      expires_at: at(0, 16),
      sent_at: at(0, 2),
      created_at: at(0, 1),
      updated_at: at(0, 3),
    };
    const open = await read.getCheckout('chk_ok', { secretFields: false });
    expect(open).toEqual(base);
    expect(open).not.toHaveProperty('email');
    expect(open).not.toHaveProperty('reporting');
    expect(open).not.toHaveProperty('fee_rate_bps');
    const payment = (await read.getPayment(BIZ_A, 'pmt_ok'))!;
    expect(await read.getCheckout('chk_ok', { secretFields: true, businessId: BIZ_A })).toEqual({
      ...base,
      email: 'buyer@example.test',
      reporting: payment.reporting,
      fee_rate_bps: 100,
    });
  });

  it('is scoped to the business when one is given', async () => {
    expect(await read.getCheckout('chk_ok', { secretFields: true, businessId: BIZ_B })).toBeNull();
    expect(await read.getCheckout('chk_other', { secretFields: true, businessId: BIZ_B })).toMatchObject({ id: 'chk_other', payment_id: 'pmt_other' });
    expect(await read.getCheckout('chk_nope', { secretFields: false })).toBeNull();
  });
});

describe('receipt', () => {
  const RECEIPT_KEYS = [
    'amount', 'back_url', 'breakdown', 'business', 'created_at', 'crypto', 'currency', 'description', 'failure_code', 'id', 'kind', 'overpaid_amount',
    'paid_at', 'rail', 'received_amount', 'reference', 'status', 'transaction', 'transfers',
  ];

  it('underpaid → remainder: every transfer, the first as the transaction, the business from its read model', async () => {
    expect(await read.getReceipt('pmt_under')).toEqual({
      kind: 'receipt',
      id: 'pmt_under',
      status: 'succeeded',
      description: 'Order of pmt_under',
      reference: null,
      amount: 10_000,
      currency: 'USD',
      breakdown: { currency: 'USD', price: 10_000, processing_fee: null, network_fee: null, total: 10_000 },
      rail: 'crypto',
      crypto: { asset: 'USDC', network: 'ethereum', amount: '100' },
      received_amount: '100',
      overpaid_amount: null,
      failure_code: null,
      transaction: { hash: hash(2), url: etherscan(hash(2)) },
      transfers: [
        { hash: hash(2), network: 'ethereum', asset: 'USDC', url: etherscan(hash(2)), amount: '90' },
        { hash: hash(3), network: 'ethereum', asset: 'USDC', url: etherscan(hash(3)), amount: '10' },
      ],
      business: { name: 'Acme Shop', support_email: 'help@acme.example.test' },
      back_url: 'https://shop.example.test/thanks',
      paid_at: at(1, 23),
      created_at: at(1, 0),
    });
  });

  it('omits the fees the business pays, the deposit address and customer details', async () => {
    const receipt = (await read.getReceipt('pmt_over'))!;
    expect(Object.keys(receipt).sort()).toEqual(RECEIPT_KEYS);
    // the customer's own fee is part of what they paid; the business's fee (reporting) is not shown
    expect(receipt.breakdown).toEqual({ currency: 'USD', price: 10_000, processing_fee: 100, network_fee: null, total: 10_100 });
    expect(receipt).toMatchObject({ received_amount: '111.1', overpaid_amount: '10.1', paid_at: at(7, 3) });
    const text = JSON.stringify(await read.getReceipt('pmt_ok'));
    for (const secret of ['cst_1', 'buyer@example.test', SENDER, world.addressOf.get('chk_ok')!, 'o-1b', 'reporting', 'fee_rate_bps', '"net"', '9900', 'customer_fee']) {
      expect(text).not.toContain(secret);
    }
  });

  it('nothing arrived: received_amount and the transaction are null; back_url falls back to the website', async () => {
    expect(await read.getReceipt('pmt_exp')).toMatchObject({
      status: 'failed',
      failure_code: 'payment_expired',
      received_amount: null,
      overpaid_amount: null,
      transaction: null,
      transfers: [],
      paid_at: null,
      back_url: 'https://acme.example.test',
    });
  });

  it('unknown payment → null; a business without a row still gets a receipt', async () => {
    expect(await read.getReceipt('pmt_nope')).toBeNull();
    expect(await read.getReceipt('pmt_other')).toMatchObject({ id: 'pmt_other', business: { name: '', support_email: null }, back_url: 'https://shop.example.test/thanks' });
  });
});

describe('business isolation and codes', () => {
  it("another business's payment reads as not found", async () => {
    expect(await read.getPayment(BIZ_B, 'pmt_ok')).toBeNull();
    expect(await read.getPayment(BIZ_A, 'pmt_other')).toBeNull();
    expect(await read.getPayment(BIZ_B, 'pmt_other')).toMatchObject({ id: 'pmt_other', metadata: { order: 'o-1' } });
    expect(await read.getPayment(BIZ_A, 'pmt_nope')).toBeNull();
    expect((await read.getPayments(BIZ_A, ['pmt_over', 'pmt_other', 'pmt_ok'])).map((p) => p.id)).toEqual(['pmt_over', 'pmt_ok']);
  });

  it('finds a payment by the code at the end of its url', async () => {
    expect(await read.paymentIdByCode('code_pmt_under')).toEqual({ paymentId: 'pmt_under', businessId: BIZ_A });
    expect(await read.paymentIdByCode('code_pmt_other')).toEqual({ paymentId: 'pmt_other', businessId: BIZ_B });
    expect(await read.paymentIdByCode('nope')).toBeNull();
  });
});

describe('stored views (decision 0018)', () => {
  it('every payment reads as JSON.stringify(paymentView) of its state column, byte for byte, from its stored view or rendered', async () => {
    const { rows } = await db.query<{ id: string; business_id: string; state: PaymentViewState }>(`SELECT id, business_id, state FROM payments ORDER BY id`);
    expect(rows.length).toBeGreaterThan(5);
    // another registry instance: this read model renders every row from its state
    const rendering = new PaymentsReadModel(db, { checkoutBaseUrl: `${CHECKOUT_BASE}/`, registry: createRegistry() });
    for (const { id, business_id, state } of rows) {
      const text = JSON.stringify(paymentView(state, { checkoutBaseUrl: CHECKOUT_BASE }));
      const stored = await read.getPayment(business_id, id);
      expect(JSON.stringify(stored)).toBe(text);
      expect(JSON.stringify(await rendering.getPayment(business_id, id))).toBe(text);
      expect(JSON.stringify(await read.getPayments(business_id, [id]))).toBe(`[${text}]`);
    }
    expect((await read.getPayment(BIZ_A, 'pmt_link'))?.url).toBeNull();
  });
});
