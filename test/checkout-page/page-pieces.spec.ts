import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import * as ts from 'typescript';
import { CheckoutPageModel, PAGE_ASSETS_DIR, SEEN_COUNTDOWN, SEEN_TEXT, cardPriceAccepted, checkoutPageHtml, countdownText, quoteEndsAt, receivedSoFar, soFar, headingOf, textOrNull, statusText, checkoutPagePath, payRails, projectRoot, readPageAssets, formatMoney, jsonData, pageCsp, payOptions, receiptHtml, text, viewOf } from '@lib/checkout-page';
import type { CheckoutView, PaymentView, ReceiptView } from '@lib/payments';
import { CardProcessor, CardRoutes } from '@lib/cards';
import type { NetworkId } from '@lib/chains';
import { tempDir } from '../support/temp-dir';

const ALL: NetworkId[] = ['ethereum', 'polygon', 'base', 'arbitrum', 'solana', 'bitcoin'];
const pairs = (options: { asset: string; network: string }[]) => options.map((o) => `${o.asset}@${o.network}`);

describe('the coins and networks the page offers (payOptions, pure)', () => {
  it('given a simulated business whose wallet receives everywhere: every pair the registry carries', () => {
    expect(payOptions({ simulated: true, currency: 'USD', receiving: new Set(ALL), liveNetworks: [], paused: new Set() })).toHaveLength(14);
  });

  it('given a live business: only networks a chain watcher watches (POST /checkouts: not_accepting elsewhere)', () => {
    const options = payOptions({ simulated: false, currency: 'USD', receiving: new Set(ALL), liveNetworks: ['ethereum', 'bitcoin'], paused: new Set() });
    expect(pairs(options)).toEqual(['USDC@ethereum', 'USDT@ethereum', 'BTC@bitcoin', 'ETH@ethereum']);
  });

  it('given a wallet with EVM keys only: no Solana or Bitcoin', () => {
    const options = payOptions({ simulated: true, currency: 'EUR', receiving: new Set<NetworkId>(['ethereum', 'polygon', 'base', 'arbitrum']), liveNetworks: [], paused: new Set() });
    expect(pairs(options).some((p) => /solana|bitcoin/.test(p))).toBe(false);
    expect(pairs(options)).toContain('ETH@base');
  });

  it('given no wallet, a paused network, or a currency no rate covers: left out', () => {
    expect(payOptions({ simulated: true, currency: 'USD', receiving: new Set(), liveNetworks: [], paused: new Set() })).toEqual([]);
    expect(pairs(payOptions({ simulated: true, currency: 'USD', receiving: new Set(ALL), liveNetworks: [], paused: new Set<NetworkId>(['ethereum']) })).some((p) => p.endsWith('@ethereum'))).toBe(false);
    expect(payOptions({ simulated: true, currency: 'GBP', receiving: new Set(ALL), liveNetworks: [], paused: new Set() })).toEqual([]);
  });
});

describe('whether Card is offered for the price (cardPriceAccepted, pure; §8 card price $5 to $10,000)', () => {
  const price = (amount: number, feePayer: 'business' | 'customer' = 'business', currency = 'USD') => cardPriceAccepted({ currency, amount, feePayer, feeRateBps: 100 });
  it('given a price inside the range, at both ends: card', () => {
    expect([price(500), price(2_500), price(1_000_000)]).toEqual([true, true, true]);
  });
  it('given a price below $5 or above $10,000: no card', () => {
    expect([price(499), price(1_000_001), price(100)]).toEqual([false, false, false]);
  });
  it('given a customer who pays the fee: the total decides ($9,999 + 1% is over $10,000)', () => {
    expect(price(999_900, 'business')).toBe(true);
    expect(price(999_900, 'customer')).toBe(false);
  });
  it('given the rails: card is dropped when the price is not a card price', () => {
    expect(payRails({ accepted: ['crypto', 'card'], takesCards: true, cardPrice: false })).toEqual(['crypto']);
    expect(payRails({ accepted: ['crypto', 'card'], takesCards: true, cardPrice: true })).toEqual(['crypto', 'card']);
  });
});

describe('the rails the page offers (payRails, pure; decision 0028)', () => {
  it('given the default settings and a business a processor takes cards for: crypto, then card', () => {
    expect(payRails({ accepted: ['crypto', 'card'], takesCards: true })).toEqual(['crypto', 'card']);
  });
  it('given a business no processor takes cards for (a live business today): crypto alone', () => {
    expect(payRails({ accepted: ['crypto', 'card'], takesCards: false })).toEqual(['crypto']);
    expect(payRails({ accepted: ['card'], takesCards: false })).toEqual([]);
  });
  it('given settings that leave a rail out: only the others', () => {
    expect(payRails({ accepted: ['card'], takesCards: true })).toEqual(['card']);
    expect(payRails({ accepted: ['crypto'], takesCards: true })).toEqual(['crypto']);
  });
});

describe('whether a business takes cards at all (CardRoutes.takesCards, what the page asks)', () => {
  const processor = (name: string) => ({ name, serves: () => true }) as unknown as CardProcessor;
  it('given simulated processors and no real one: a simulated business does, a live one does not', () => {
    const routes = new CardRoutes([processor('simulated_a'), processor('simulated_b')], []);
    expect(routes.takesCards({ simulated: true })).toBe(true);
    expect(routes.takesCards({ simulated: false })).toBe(false);
    expect(routes.availability({ simulated: false }, 'US')).toEqual({ available: false, reason: 'business' });
  });
  it('given a real processor: a live business does', () => {
    expect(new CardRoutes([], [processor('real')]).takesCards({ simulated: false })).toBe(true);
  });
});

describe('the coins the settings accept (payOptions with accepted pairs)', () => {
  it('given accepted pairs: only those, in the registry order; null: every pair', () => {
    const accepted = [{ asset: 'SOL', network: 'solana' }, { asset: 'USDC', network: 'base' }, { asset: 'BTC', network: 'polygon' }];
    expect(pairs(payOptions({ simulated: true, currency: 'USD', receiving: new Set(ALL), liveNetworks: [], paused: new Set(), accepted })))
      .toEqual(['USDC@base', 'SOL@solana']);
    expect(payOptions({ simulated: true, currency: 'USD', receiving: new Set(ALL), liveNetworks: [], paused: new Set(), accepted: null })).toHaveLength(14);
  });
});

describe('which view the page shows (viewOf, pure)', () => {
  const crypto = (status: string) => ({ status, rail: 'crypto' }) as const;
  it.each([
    ['pending', null, 'choose'],
    ['pending', 'open', 'pay'],
    ['pending', 'confirming', 'confirming'],
    ['underpaid', 'awaiting_customer', 'underpaid'],
    ['underpaid', 'expired', 'remainder-wait'],
    ['underpaid', 'open', 'pay'], // the remainder checkout
    ['pending', 'expired', 'expired'],
    ['pending', 'canceled', 'canceled'],
    ['underpaid', 'canceled', 'canceled-part'], // part arrived: no "pay again" (409 payment_paid), the business asks for the rest (audit M1, 2026-11-29)
    ['pending', 'completed', 'succeeded'],
    ['succeeded', 'expired', 'succeeded'],
    ['needs_review', 'expired', 'review'],
    ['pending', 'needs_review', 'review'],
    ['canceled', 'open', 'closed'],
    ['failed', null, 'closed'],
  ] as const)('payment %s, checkout %s → %s', (payment, checkout, view) => {
    expect(viewOf({ status: payment }, checkout === null ? null : (crypto(checkout) as never))).toBe(view);
  });

  it('a card checkout shows the card view until it completes or is canceled', () => {
    expect(viewOf({ status: 'pending' }, { status: 'open', rail: 'card' } as never)).toBe('card');
    expect(viewOf({ status: 'pending' }, { status: 'canceled', rail: 'card' } as never)).toBe('canceled');
    expect(viewOf({ status: 'pending' }, { status: 'completed', rail: 'card' } as never)).toBe('succeeded');
  });

  it('a link payment failed by its canceled checkout shows "canceled" (pay again: a new payment) on the link page, "closed" elsewhere', () => {
    const canceled = { status: 'canceled', rail: 'crypto' } as never;
    expect(viewOf({ status: 'failed' }, canceled, 'link')).toBe('canceled');
    expect(viewOf({ status: 'failed' }, canceled, 'payment')).toBe('closed');
    expect(viewOf({ status: 'failed' }, null, 'link')).toBe('closed');
  });

  it('a link payment failed by its expired checkout shows "expired" (a new quote: a new payment) on the link page (0009 addendum, nineteenth session)', () => {
    const expired = { status: 'expired', rail: 'crypto' } as never;
    expect(viewOf({ status: 'failed' }, expired, 'link')).toBe('expired');
    expect(viewOf({ status: 'failed' }, expired, 'payment')).toBe('closed');
  });
});

describe('the quote’s countdown (quoteEndsAt, countdownText, pure; audit M2, 2026-11-29)', () => {
  const quote = { expires_at: '2026-11-29T12:15:00.000Z' };
  it('given a pending payment that expires before the quote ends: the payment’s expires_at (it fails the checkout then)', () => {
    expect(quoteEndsAt({ status: 'pending', expires_at: '2026-11-29T12:03:00.000Z' }, quote)).toBe('2026-11-29T12:03:00.000Z');
  });
  it('given a payment that expires later, never, or is underpaid (only a pending payment expires): the quote’s end', () => {
    expect(quoteEndsAt({ status: 'pending', expires_at: '2026-11-29T13:00:00.000Z' }, quote)).toBe(quote.expires_at);
    expect(quoteEndsAt({ status: 'pending', expires_at: null }, quote)).toBe(quote.expires_at);
    expect(quoteEndsAt({ status: 'underpaid', expires_at: '2026-11-29T12:03:00.000Z' }, quote)).toBe(quote.expires_at);
    expect(quoteEndsAt({ status: 'pending', expires_at: '2026-11-29T12:03:00.000Z' }, null)).toBeNull();
  });
  it('counts down in minutes and seconds (hours when longer), "ending now" once passed', () => {
    const now = Date.parse('2026-11-29T12:00:00.000Z');
    expect(countdownText('2026-11-29T12:03:00.000Z', now)).toBe('3:00');
    expect(countdownText('2026-11-29T12:14:59.500Z', now)).toBe('14:59');
    expect(countdownText('2026-11-29T13:02:05.000Z', now)).toBe('1:02:05');
    expect(countdownText('2026-11-29T11:59:00.000Z', now)).toBe('ending now');
    expect(countdownText(null, now)).toBe('\u2014');
  });
});

describe('the page as first painted (checkoutPageHtml, pure; audit of 2026-11-29)', () => {
  const paths = { base: '/checkout', api: '/api/v1', script: '/checkout/assets/checkout.js', style: '/checkout/assets/checkout.css' };
  const NOW = '2026-11-29T12:00:00.000Z';
  const crypto = (over: Partial<NonNullable<CheckoutView['crypto']>> = {}): NonNullable<CheckoutView['crypto']> => ({
    asset: 'USDC', network: 'base', amount: '25', address: '0xabc', payment_uri: 'ethereum:0xabc', rate: { amount: 100, currency: 'USD', source: null, at: null },
    received_amount: '0', remaining_amount: null, remaining_payment_uri: null, overpaid_amount: null, detected_network: null, tx_hash: null, explorer_url: null, pending_tx_hash: null, ...over,
  });
  const checkout = (over: Partial<CheckoutView> = {}): CheckoutView => ({
    kind: 'checkout', id: 'chk_1', status: 'open', rail: 'crypto', link_id: null, payment_id: 'pmt_1', amount: 2_500, currency: 'USD',
    breakdown: { currency: 'USD', price: 2_500, processing_fee: null, network_fee: null, total: 2_500 } as CheckoutView['breakdown'],
    crypto: crypto(), card: null, confirmations: { current: 0, required: 4 }, remainder: false, canceled_by: null, replaced_by: null, failure_code: null, review_reason: null,
    success_url: null, expires_at: '2026-11-29T12:15:00.000Z', sent_at: null, created_at: NOW, updated_at: NOW, ...over,
  });
  const model = (over: { payment?: Partial<CheckoutPageModel['payment']>; checkout?: CheckoutView | null; simulated?: boolean; heading?: CheckoutPageModel['heading'] } = {}): CheckoutPageModel => ({
    code: 'abc', source: 'payment',
    payment: { id: 'pmt_1', status: 'pending', amount: 2_500, currency: 'USD', amount_text: '$25.00', description: 'Mug', success_url: null, cancel_url: null, expires_at: null, received: null, amount_received: 0, amount_received_text: null, ...over.payment },
    heading: over.heading ?? { title: 'Mug', detail: null },
    business: { name: 'Shop', support_email: 'help@shop.example', simulated: over.simulated ?? true },
    rails: ['crypto'], ask_email: false, checkout: over.checkout === undefined ? checkout() : over.checkout, options: [], paused: null, now: NOW,
  });
  /** The section of a view and whether it is shown. */
  const section = (html: string, view: string) => {
    const found = new RegExp(`<section id="view-${view}"([^>]*)>([\\s\\S]*?)</section>`).exec(html);
    if (!found) throw new Error(`no view-${view}`);
    return { shown: !/\bhidden\b/.test(found[1]), body: found[2] };
  };
  const words = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();

  it('given an underpaid payment whose checkout the customer canceled: what arrived and what is due, that only the business can ask for the rest, and no "Pay again" (M1)', () => {
    const canceled = checkout({ status: 'canceled', canceled_by: 'customer', crypto: crypto({ amount: '25', received_amount: '22.5', remaining_amount: '2.5' }) });
    const html = checkoutPageHtml(model({ payment: { status: 'underpaid', received: { asset: 'USDC', amount: '22.5', remaining: '2.5' } }, checkout: canceled }), paths);
    const view = section(html, 'canceled-part');
    expect(view.shown).toBe(true);
    expect(section(html, 'canceled').shown).toBe(false);
    expect(words(view.body)).toContain('Received 22.5 USDC');
    expect(words(view.body)).toContain('Still due 2.5 USDC');
    expect(words(view.body)).toContain('Only Shop can ask you for it');
    expect(view.body).not.toContain('data-action="choose"');
    expect(view.body).not.toContain('Nothing more is expected');
  });

  it('given a canceled remainder checkout: the payment’s totals (the remainder’s own start at zero) (M1)', () => {
    const remainder = checkout({ status: 'canceled', remainder: true, crypto: crypto({ asset: 'SOL', amount: '0.016666667', received_amount: '0' }) });
    const html = checkoutPageHtml(model({ payment: { status: 'underpaid', received: { asset: 'SOL', amount: '0.15', remaining: '0.016666667' } }, checkout: remainder }), paths);
    const view = section(html, 'canceled-part');
    expect(view.shown).toBe(true);
    expect(words(view.body)).toContain('Received 0.15 SOL');
    expect(words(view.body)).toContain('Still due 0.016666667 SOL');
    expect(view.body).not.toContain('<button'); // nothing leads to the choice, which has no coin for an underpaid payment
  });

  it('given a checkout holding part of the payment (underpaid, or a remainder): the cancel button says what canceling means (M1)', () => {
    const underpaid = checkoutPageHtml(model({ payment: { status: 'underpaid' }, checkout: checkout({ status: 'awaiting_customer', crypto: crypto({ received_amount: '22.5', remaining_amount: '2.5' }) }) }), paths);
    expect(section(underpaid, 'underpaid').body).toMatch(/<p class="note" id="cancel-warning-underpaid" data-cancel-warning>If you cancel, what you already sent stays with this payment/);
    const rest = checkoutPageHtml(model({ payment: { status: 'underpaid' }, checkout: checkout({ remainder: true }) }), paths);
    expect(section(rest, 'pay').body).toMatch(/<p class="note" id="cancel-warning-pay" data-cancel-warning>/);
    expect(section(rest, 'pay').body).toContain('data-action="cancel" aria-describedby="cancel-warning-pay"');
    const first = checkoutPageHtml(model(), paths);
    expect(section(first, 'pay').body).toMatch(/<p class="note" id="cancel-warning-pay" data-cancel-warning hidden>/);
    expect(section(first, 'pay').body).not.toContain('aria-describedby="cancel-warning-pay"');
  });

  it('given a pending payment that expires 3 minutes from now under a 15-minute quote: the countdown says 3:00 (M2)', () => {
    const html = checkoutPageHtml(model({ payment: { expires_at: '2026-11-29T12:03:00.000Z' } }), paths);
    expect(section(html, 'pay').body).toContain('Quote valid for <span data-f="countdown">3:00</span>');
    expect(section(checkoutPageHtml(model(), paths), 'pay').body).toContain('Quote valid for <span data-f="countdown">15:00</span>');
  });

  it('given a completed checkout that received more than due: the succeeded view says how much more (L1)', () => {
    const over = checkoutPageHtml(model({ payment: { status: 'succeeded' }, checkout: checkout({ status: 'completed', crypto: crypto({ received_amount: '27.5', overpaid_amount: '2.5' }) }) }), paths);
    const view = section(over, 'succeeded');
    expect(view.shown).toBe(true);
    expect(words(view.body)).toContain('You sent 2.5 USDC more than the amount due.');
    const exact = checkoutPageHtml(model({ payment: { status: 'succeeded' }, checkout: checkout({ status: 'completed', crypto: crypto({ received_amount: '25' }) }) }), paths);
    expect(section(exact, 'succeeded').body).toMatch(/<p data-overpaid hidden>/);
  });

  it('given a payment the business accepted short: the succeeded view says what arrived (€45.00), less than the price, never "has received €50.00" (audit M1, 2026-11-30)', () => {
    const accepted = model({ payment: { status: 'succeeded', amount: 5_000, currency: 'EUR', amount_text: '€50.00', amount_received: 4_500, amount_received_text: '€45.00' }, checkout: checkout({ status: 'expired', crypto: crypto({ received_amount: '48.9', remaining_amount: '5.4' }) }) });
    const view = section(checkoutPageHtml(accepted, paths), 'succeeded');
    expect(view.shown).toBe(true);
    const shown = view.body.split('\n').filter((line) => /^<p data-paid="[a-z]+">/.test(line)).map((line) => line.replace(/<[^>]+>/g, ''));
    expect(shown).toEqual(['Thank you. Shop has received €45.00, less than the price of €50.00, and accepted it as this payment: nothing more is due from you.']);
    // paid in full: the price, as before
    const full = section(checkoutPageHtml(model({ payment: { status: 'succeeded', amount_received: 2_500, amount_received_text: '$25.00' }, checkout: checkout({ status: 'completed' }) }), paths), 'succeeded');
    expect(full.body.split('\n').filter((line) => /^<p data-paid="[a-z]+">/.test(line)).map((line) => line.replace(/<[^>]+>/g, ''))).toEqual(['Thank you. Shop has received $25.00.']);
  });

  it('a blank description is none: the page heads with "Payment", the title has no dangling dash (audit L7, 2026-11-30)', () => {
    for (const description of ['', '   ']) {
      const page = { description: textOrNull(description) };
      expect(headingOf(page, null)).toEqual({ title: 'Payment', detail: null });
      const html = checkoutPageHtml(model({ payment: page, heading: headingOf(page, null) }), paths);
      expect(html).toContain('<h1 id="description">Payment</h1>');
      expect(html).toContain('<title>Pay Shop</title>');
    }
  });

  it('a link’s page heads with its name, its description under it (decision 0030 addendum, 2026-11-30)', () => {
    const heading = headingOf({ description: 'Handmade, 40 cm tall.' }, { name: 'Yellow lamp', description: 'Handmade, 40 cm tall.' });
    expect(heading).toEqual({ title: 'Yellow lamp', detail: 'Handmade, 40 cm tall.' });
    const html = checkoutPageHtml({ ...model({ heading }), source: 'link' }, paths);
    expect(html).toContain('<h1 id="description">Yellow lamp</h1>\n<p class="detail" id="detail">Handmade, 40 cm tall.</p>');
    expect(html).toContain('<title>Pay Shop — Yellow lamp</title>');
    expect(headingOf({ description: 'Blue mug' }, { name: 'Blue mug', description: null })).toEqual({ title: 'Blue mug', detail: null });
    expect(headingOf({ description: 'Blue mug' }, { name: 'Blue mug', description: '  ' })).toEqual({ title: 'Blue mug', detail: null });
  });

  it('a remainder checkout says what the whole payment holds: on its pay view, and "Received in all" after a short transfer to it (audit L4, 2026-11-30)', () => {
    const rest = checkoutPageHtml(model({ payment: { status: 'underpaid', received: { asset: 'USDC', amount: '99', remaining: '1' } }, checkout: checkout({ remainder: true, crypto: crypto({ amount: '1' }) }) }), paths);
    const pay = section(rest, 'pay');
    expect(pay.shown).toBe(true);
    expect(pay.body).toContain('<dl class="facts" data-remainder-facts>');
    expect(words(pay.body)).toContain('Already received 99 USDC Still due 1 USDC');
    // a first quote's pay view: no such facts
    expect(section(checkoutPageHtml(model(), paths), 'pay').body).toContain('<dl class="facts" data-remainder-facts hidden>');
    const short = checkoutPageHtml(
      model({ payment: { status: 'underpaid', received: { asset: 'USDC', amount: '99', remaining: '1' } }, checkout: checkout({ status: 'awaiting_customer', remainder: true, crypto: crypto({ amount: '10', received_amount: '9', remaining_amount: '1' }) }) }),
      paths,
    );
    expect(words(section(short, 'underpaid').body)).toContain('Received in all 99 USDC Still due 1 USDC');
  });

  describe('the receipt page (receiptHtml)', () => {
    const receipt = (over: Partial<ReceiptView> = {}): ReceiptView => ({
      kind: 'receipt', id: 'pmt_1', status: 'succeeded', description: 'Mug', reference: null, amount: 5_000, currency: 'EUR',
      breakdown: { currency: 'EUR', price: 5_000, processing_fee: null, network_fee: null, total: 5_000 }, rail: 'crypto',
      crypto: { asset: 'USDT', network: 'polygon', amount: '54.347827' }, received_amount: '54.347827', overpaid_amount: null, failure_code: null,
      transaction: null, transfers: [], business: { name: 'Shop', support_email: null }, back_url: null, paid_at: '2026-11-30T01:00:00.000Z', created_at: '2026-11-30T00:50:00.000Z', ...over,
    });
    const rows = (html: string) => [...html.matchAll(/<dt>([^<]+)<\/dt><dd>([^<]*)<\/dd>/g)].map((m) => `${m[1]}: ${m[2]}`);

    it('"Paid in" only when all of the quote arrived; partly paid or accepted short: "Quoted" next to "Received" (audit L2, 2026-11-30)', () => {
      expect(rows(receiptHtml({ receipt: receipt(), simulated: false }, 'abc', paths))).toContain('Paid in: 54.347827 USDT on Polygon');
      const short = rows(receiptHtml({ receipt: receipt({ received_amount: '48.913044' }), simulated: false }, 'abc', paths));
      expect(short).toEqual(expect.arrayContaining(['Quoted: 54.347827 USDT on Polygon', 'Received: 48.913044 USDT']));
      expect(short.join('\n')).not.toContain('Paid in');
      const part = rows(receiptHtml({ receipt: receipt({ status: 'underpaid', received_amount: '18', crypto: { asset: 'USDT', network: 'ethereum', amount: '20' }, paid_at: null }), simulated: false }, 'abc', paths));
      expect(part).toEqual(expect.arrayContaining(['Status: Partly paid', 'Quoted: 20 USDT on Ethereum', 'Received: 18 USDT']));
      const over = rows(receiptHtml({ receipt: receipt({ received_amount: '56.5', overpaid_amount: '2.152173' }), simulated: false }, 'abc', paths));
      expect(over).toContain('Paid in: 54.347827 USDT on Polygon');
    });

    it('a simulated business’s receipt carries the test-mode marker, a live one’s does not (audit L3, 2026-11-30)', () => {
      const test = receiptHtml({ receipt: receipt(), simulated: true }, 'abc', paths);
      expect(test).toMatch(/<aside class="banner" id="test-banner" aria-label="Test mode"><p><strong>Test mode\.<\/strong>/);
      expect(test).toContain('<h1>Test receipt</h1>');
      const live = receiptHtml({ receipt: receipt(), simulated: false }, 'abc', paths);
      expect(live).not.toMatch(/test-banner|Test mode|Test receipt/);
    });
  });

  it('the test-mode banner is in a landmark of its own (axe "region"; L4)', () => {
    expect(checkoutPageHtml(model(), paths)).toMatch(/<aside class="banner" id="test-banner" aria-label="Test mode"><p><strong>Test mode\.<\/strong>/);
    expect(checkoutPageHtml(model({ simulated: false }), paths)).not.toContain('test-banner');
  });

  it('what the whole payment received (soFar; receivedSoFar from the payment’s method)', () => {
    expect(soFar({ payment: model().payment, checkout: checkout({ crypto: crypto({ received_amount: '22.5', remaining_amount: '2.5' }) }) })).toEqual({ asset: 'USDC', amount: '22.5', remaining: '2.5' });
    expect(soFar({ payment: { ...model().payment, received: { asset: 'SOL', amount: '0.15', remaining: '0.01' } }, checkout: checkout({ remainder: true }) })).toEqual({ asset: 'SOL', amount: '0.15', remaining: '0.01' });
    const method = (amount: string | null) => ({ method: { rail: 'crypto', asset: 'USDC', network: 'base', amount, expected_amount: '25', overpaid_amount: null, from_address: null, tx_hash: null, explorer_url: null, card: null } }) as Pick<PaymentView, 'method'>;
    expect(receivedSoFar(method('22.5'))).toEqual({ asset: 'USDC', amount: '22.5', remaining: '2.5' });
    expect(receivedSoFar(method('27.5'))).toEqual({ asset: 'USDC', amount: '27.5', remaining: null });
    expect(receivedSoFar(method('0'))).toBeNull();
    expect(receivedSoFar({ method: null })).toBeNull();
  });
});

describe('the status line of a view (statusText, pure; the script says the same after every poll)', () => {
  const hash = 'ab'.repeat(32);
  it('given an open or underpaid checkout whose transaction was seen in the mempool: seen, waiting for a block (0023 addendum, 2026-11-29)', () => {
    expect(statusText('pay', hash)).toBe('Your transfer was seen on the network. Waiting for it to be included in a block: the quote is held until then.');
    expect(statusText('underpaid', hash)).toBe(SEEN_TEXT);
  });
  it('given none seen, or another view: the view’s own line', () => {
    expect(statusText('pay', null)).toBe('Waiting for your transfer.');
    expect(statusText('expired', null)).toBe('The quote has ended.');
    expect(statusText('confirming', hash)).toBe('Transfer detected. Waiting for confirmations.');
  });
  it('the script carries the same words (first paint and polls agree)', () => {
    const script = readPageAssets().script;
    expect(script).toContain(`'${SEEN_TEXT}'`);
    expect(script).toContain(`'${SEEN_COUNTDOWN}'`);
  });
});

describe('the receipt page’s transfers (receiptHtml, pure)', () => {
  const hash = '0x' + 'ab'.repeat(32);
  const receipt: ReceiptView = {
    kind: 'receipt', id: 'pmt_1', status: 'succeeded', description: 'Mug', reference: null, amount: 2_500, currency: 'USD',
    breakdown: { currency: 'USD', price: 2_500, processing_fee: null, network_fee: null, total: 2_500 },
    rail: 'crypto', crypto: { asset: 'USDC', network: 'ethereum', amount: '25' }, received_amount: '25', overpaid_amount: null, failure_code: null,
    transaction: { hash, url: `https://etherscan.io/tx/${hash}` },
    transfers: [{ hash, network: 'ethereum', asset: 'USDC', url: `https://etherscan.io/tx/${hash}`, amount: '25' }],
    business: { name: 'Shop', support_email: null }, back_url: null, paid_at: '2026-11-28T10:00:00.000Z', created_at: '2026-11-28T09:55:00.000Z',
  };
  const paths = { base: '/checkout', api: '/api/v1', script: '/checkout/assets/checkout.js', style: '/checkout/assets/checkout.css' };

  it('given a live business: each transfer’s hash links to its explorer_url', () => {
    expect(receiptHtml({ receipt, simulated: false }, 'abc', paths)).toContain(`<a href="https://etherscan.io/tx/${hash}" rel="noopener noreferrer">${hash}</a>`);
  });

  it('given transfers in two coins: each line names its own coin (a second quote paid in ETH does not read as USDC)', () => {
    const eth = { hash: '0x' + 'cd'.repeat(32), network: 'ethereum' as const, asset: 'ETH' as const, url: null, amount: '0.005' };
    const html = receiptHtml({ receipt: { ...receipt, transfers: [...receipt.transfers, eth] }, simulated: true }, 'abc', paths);
    expect(html).toContain(' — 25 USDC on ');
    expect(html).toContain(' — 0.005 ETH on ');
  });

  it('given a simulated business: the hash is shown without a link (it is on no chain; audit, 2026-11-28)', () => {
    const html = receiptHtml({ receipt, simulated: true }, 'abc', paths);
    expect(html).toContain(`<span class="mono">${hash}</span>`);
    expect(html).not.toContain('etherscan.io');
  });
});

describe('page pieces', () => {
  it('formats minor units exactly, in the payment’s currency', () => {
    expect(formatMoney(2_500, 'USD')).toBe('$25.00');
    expect(formatMoney(5, 'USD')).toBe('$0.05');
    expect(formatMoney(100_000_000, 'USD')).toBe('$1,000,000.00');
    expect(formatMoney(123_456, 'EUR')).toBe('€1,234.56');
  });

  it('escapes text and attributes, and a JSON data block can never close its element', () => {
    expect(text(`<script>"'&`)).toBe('&lt;script&gt;&quot;&#39;&amp;');
    const block = jsonData({ description: '</script><!-- \u2028 & <b>' });
    expect(block).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(block)).toEqual({ description: '</script><!-- \u2028 & <b>' });
  });

  it('the CSP allows nothing but this origin (and data: images)', () => {
    expect(pageCsp()).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  });

  it('the page lives at the path of CHECKOUT_BASE_URL', () => {
    expect(checkoutPagePath({ checkoutBaseUrl: 'http://localhost:3000/checkout' })).toBe('/checkout');
    expect(checkoutPagePath({ checkoutBaseUrl: 'https://pay.example.com/a/b/' })).toBe('/a/b');
    expect(checkoutPagePath({ checkoutBaseUrl: 'https://pay.example.com' })).toBe('');
  });

  it('the script and stylesheet are the files in libs/checkout-page/assets, found from the project root both from the sources and from dist/', () => {
    const root = join(__dirname, '..', '..');
    expect(projectRoot()).toBe(root);
    // the built module sits at dist/libs/checkout-page/src: the walk up ends at the same root
    expect(projectRoot(join(root, 'dist', 'libs', 'checkout-page', 'src'))).toBe(root);
    const assets = readPageAssets();
    expect(assets.script.startsWith('// @ts-check\n')).toBe(true);
    expect(assets.style).toContain('[hidden] { display: none !important; }');
    // a folder holding a package.json but no assets: the app refuses to start, naming the path
    const dir = tempDir('page-assets-');
    const empty = join(dir.path, 'project');
    mkdirSync(join(empty, 'deep'), { recursive: true });
    writeFileSync(join(empty, 'package.json'), '{}');
    expect(projectRoot(join(empty, 'deep'))).toBe(empty);
    expect(() => readPageAssets(empty)).toThrow(/checkout\.js/);
    dir.remove();
  });

  it('the script parses as a classic script and passes TypeScript\'s check (assets/tsconfig.json: checkJs, strict, lib dom/es2017)', () => {
    const { script } = readPageAssets();
    expect(() => new Script(script)).not.toThrow();
    const configPath = join(projectRoot(), PAGE_ASSETS_DIR, 'tsconfig.json');
    const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
    expect(parsed?.options).toMatchObject({ checkJs: true, allowJs: true, strict: true, noEmit: true });
    expect(parsed!.fileNames.map((f) => f.split('/').pop())).toEqual(['checkout.js']);
    const program = ts.createProgram(parsed!.fileNames, parsed!.options);
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  }, 60_000);
});

