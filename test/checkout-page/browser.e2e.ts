import type { Page } from 'playwright-core';
import { appPerSuite, startApp } from '../support/fixtures';
import { eventually } from '../support/eventually';
import { Browser, SHOWN, accessible, expectPageHeaders, launchChromium, noErrors, pageSteps, qrOf, shot, watchedPage } from './chromium';

/**
 * The hosted checkout page walked by a customer in real headless Chromium (Debian's
 * /usr/bin/chromium, driven by playwright-core; nothing downloads a browser), against the real
 * app: pay to succeeded, underpaid then remainder, a new quote after the quote ends, a late payer's
 * claim, cancel back to the shop. Every QR code on screen is decoded and compared with the
 * checkout's payment URI; axe-core checks each main state; the CSP header is there and nothing
 * logs a console error. Screenshots of each step go to test-artifacts/checkout-page/. The card
 * walks are in card-browser.e2e.ts.
 */

/** The shop's own pages (success and cancel URLs): answered by the test, never fetched. */
const SHOP = 'https://shop.example';

describe('checkout page in Chromium (a customer pays)', () => {
  let browser: Browser;
  // declared before the app's hooks: afterAll hooks run in declaration order, so the browser (and
  // its keep-alive connections to the app) is gone before the app closes
  afterAll(async () => {
    await browser?.close();
  });
  const suite = appPerSuite(() => startApp('embedded', { TRUSTED_PROXIES: 'loopback' }));
  const { origin, pageUrl, openPayment, checkoutIdOf, choose, status, visible, getCheckout, sendExactlyToSucceeded, ...steps } = pageSteps(() => browser, () => suite.api);
  const newShop = (name = 'Sandbox Café') => steps.newShop(name);
  /** A new shop (`name`, else the walk's) and a payment of it (`fields`), its page open and watched. */
  const shopAndPage = async (fields: Record<string, unknown> = {}, name?: string) => {
    const shop = await newShop(name);
    return { shop, ...(await openPayment(shop, fields)) };
  };

  beforeAll(async () => {
    browser = await launchChromium();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: origin() });
    await browser.context.route(`${SHOP}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!DOCTYPE html><html lang="en"><title>Shop</title><h1>Back at the shop</h1></html>' }));
  });

  /**
   * A new shop's payment page whose quote (for `asset`, else the page's default) has ended: set
   * aside so the simulated chain sends nothing 20 s in, then ended on the business's clock; the
   * page shows "expired".
   */
  async function endedQuote(asset?: string) {
    const { shop, payment, watched, page } = await shopAndPage();
    const ended = await choose(page, { asset });
    expect((await shop.as(null).post(`/checkouts/${ended}/supersede`)).status).toBe(200);
    await shop.advance(16 * 60);
    await visible(page, 'expired');
    return { shop, payment, watched, page, ended };
  }

  it('pays a simulated crypto payment to succeeded: choice, QR, copy, test-mode send, confirmations rising, receipt, back to the shop', async () => {
    const description = 'Mug <script>alert("x")</script>';
    const { shop, payment, watched, page } = await shopAndPage({ description, amount: 2_500, success_url: `${SHOP}/thanks` });

    // what they pay for, the description shown as text (never run), the test banner
    await expect(page.locator('h1').textContent()).resolves.toBe(description);
    await expect(page.locator('#price').textContent()).resolves.toBe('$25.00');
    await expect(page.locator('.merchant').textContent()).resolves.toBe('Sandbox Café');
    expect(await page.locator('#test-banner').isVisible()).toBe(true);
    await expect(page.locator('#payment-ref').innerText()).resolves.toBe(`Payment ${payment.id}`); // the footer names the payment (a link's page too, once it has one)
    expect(await status(page)).toBe('Choose how to pay.');
    await accessible(page, 'choose');
    await shot(page, '1-01-choose');

    // the coin, then a network it is carried on (the list follows the coin)
    await page.selectOption('#asset', 'ETH');
    expect(await page.locator('#network option').allTextContents()).toEqual(['Ethereum', 'Base', 'Arbitrum One']);
    const id = await choose(page, { asset: 'USDT', network: 'ethereum' });
    const checkout = await getCheckout(shop, id);
    expect(checkout).toMatchObject({ status: 'open', payment_id: payment.id, crypto: { asset: 'USDT', network: 'ethereum', amount: '25' } });
    await expect(page.locator('#view-pay [data-f="crypto-amount"]').textContent()).resolves.toBe('25');
    await expect(page.locator('#view-pay [data-f="address"]').textContent()).resolves.toBe(checkout.crypto.address);
    await expect(page.locator('#view-pay [data-f="network-name"]').textContent()).resolves.toBe('Ethereum');
    expect(await qrOf(page, '#view-pay img.qr')).toBe(checkout.crypto.payment_uri);
    expect(await page.locator('#view-pay [data-f="countdown"]').textContent()).toMatch(/^1[45]:[0-5]\d$/);
    // usable at 375 px: nothing wider than the screen
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.click('#view-pay [data-copy="address"]');
    await page.locator('#copy-feedback', { hasText: 'Address copied.' }).waitFor(SHOWN);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(checkout.crypto.address);
    await accessible(page, 'pay');
    await shot(page, '1-02-pay');

    // the test-mode control sends the exact amount; the page follows the checkout as it moves
    await page.click('#view-pay [data-simulate="exact"]');
    await visible(page, 'confirming');
    expect(await status(page)).toMatch(/^Transfer detected\. Confirmations: \d of 4\.$/);
    // a simulated hash is on no chain: shown, never linked to a real explorer (audit, 2026-11-28)
    const sent = await getCheckout(shop, id);
    await page.locator('#view-confirming [data-f="tx-hash"]', { hasText: sent.crypto.tx_hash }).waitFor(SHOWN);
    expect(await page.locator('#view-confirming [data-f="tx-link"]').isHidden()).toBe(true);
    expect(await page.locator('a[href*="etherscan"]').count()).toBe(0);
    // the 66-character hash wraps inside the column: still nothing wider than the screen (an audit's phone scrolled sideways)
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await accessible(page, 'confirming');
    await shot(page, '1-03-detected');
    const seen: number[] = [Number(await page.locator('#view-confirming [data-f="conf-current"]').textContent())];
    // one simulated block every 3 s: the business's clock moves a block at a time, the page shows each count it polls
    let shortShown = false;
    while (!(await page.locator('#view-succeeded').isVisible())) {
      await shop.advance(3);
      const before = seen[seen.length - 1];
      // a function, not a string: a string is eval'd in the page, which its CSP refuses
      await page.waitForFunction(
        (n) => {
          const doc = (globalThis as unknown as { document: { querySelector(s: string): { hasAttribute(a: string): boolean; textContent: string | null } } }).document;
          return !doc.querySelector('#view-succeeded').hasAttribute('hidden') || Number(doc.querySelector('#view-confirming [data-f="conf-current"]').textContent) > n;
        },
        before,
        SHOWN,
      );
      if (await page.locator('#view-confirming').isVisible()) {
        seen.push(Number(await page.locator('#view-confirming [data-f="conf-current"]').textContent()));
        shortShown ||= await page.locator('#view-confirming [data-short]').isVisible();
      }
      if (seen.length === 2) await shot(page, '1-04-confirmations');
    }
    expect(seen.length).toBeGreaterThanOrEqual(2); // at least one count between detection and success
    expect(shortShown).toBe(false); // the exact amount: nothing said to be still due
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.every((n) => n >= 0 && n < 4)).toBe(true);

    await visible(page, 'succeeded');
    expect(await status(page)).toBe('Payment received.');
    expect((await shop.payment(payment.id)).status).toBe('succeeded');
    await expect(page.locator('#success-link').getAttribute('href')).resolves.toBe(`${SHOP}/thanks`);
    await accessible(page, 'succeeded');
    await shot(page, '1-05-succeeded');

    // the receipt, for people
    await page.click('#receipt-link');
    await page.locator('#receipt').waitFor(SHOWN);
    expect(page.url()).toBe(pageUrl(payment, '/receipt'));
    const facts = await page.locator('#receipt-facts').innerText();
    expect(facts).toMatch(/Status\s+Paid/);
    expect(facts).toMatch(/Total\s+\$25\.00/);
    expect(facts).toMatch(/Paid in\s+25 USDT on Ethereum/);
    await expect(page.locator('.transfers').innerText()).resolves.toContain(sent.crypto.tx_hash);
    expect(await page.locator('.transfers a').count()).toBe(0); // nor on the receipt
    await accessible(page, 'receipt');
    await shot(page, '1-06-receipt');
    noErrors(watched);

    // and back to the shop's success URL
    await page.goBack();
    await visible(page, 'succeeded');
    await page.click('#success-link');
    await page.waitForURL(`${SHOP}/thanks`, SHOWN);
    await page.close();
  });

  it('underpaid: shows what arrived and what remains with its own QR; after the quote ends the remainder URL collects the rest', async () => {
    const { shop, payment, watched, page } = await shopAndPage({ amount: 10_000 });
    const first = await choose(page); // the first choice: USDC on Ethereum
    await page.click('#view-pay [data-simulate="underpaid"]');
    await visible(page, 'confirming');
    // while the short transfer confirms, the page already says what will still be due (an audit's customer saw only "We see your transfer")
    await page.locator('#view-confirming [data-short]').waitFor(SHOWN);
    await expect(page.locator('#view-confirming [data-short] [data-f="remaining"]').textContent()).resolves.toBe('10');
    await shop.advance(30); // every confirmation of the short transfer
    await visible(page, 'underpaid');
    const short = await getCheckout(shop, first);
    expect(short).toMatchObject({ status: 'awaiting_customer', crypto: { received_amount: '90', remaining_amount: '10' } });
    await expect(page.locator('#view-underpaid [data-f="received"]').textContent()).resolves.toBe('90');
    await expect(page.locator('#view-underpaid [data-f="remaining"]').textContent()).resolves.toBe('10');
    expect(await qrOf(page, '#view-underpaid img.qr')).toBe(short.crypto.remaining_payment_uri);
    expect(await status(page)).toBe('Part of the payment arrived. The rest is still due.');
    await accessible(page, 'underpaid');
    await shot(page, '2-01-underpaid');

    // the quote ends: what arrived stays with the payment; the business may send a link for the rest
    await shop.advance(16 * 60);
    await visible(page, 'remainder-wait');
    expect((await getCheckout(shop, first)).status).toBe('expired');
    await accessible(page, 'remainder-wait');
    await shot(page, '2-02-quote-ended');

    const requested = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
    expect(requested.status).toBe(201);
    const { url, checkout: remainder } = requested.body.data;
    expect(url).toBe(`${payment.url}?s=${remainder.id}`);
    await page.goto(`${origin()}${new URL(url).pathname}${new URL(url).search}`);
    await visible(page, 'pay');
    await expect(page.locator('#pay-title').textContent()).resolves.toBe('Send the rest');
    await expect(page.locator('#view-pay [data-f="crypto-amount"]').textContent()).resolves.toBe('10');
    // what the payment already holds, beside the rest to send (audit L4, 2026-11-30)
    await expect(page.locator('#view-pay [data-remainder-facts]').innerText()).resolves.toMatch(/^Already received\s+90 USDC\s+Still due\s+10 USDC$/);
    expect(await page.locator('#change-coin').isHidden()).toBe(true); // a remainder keeps its coin and network
    expect(await qrOf(page, '#view-pay img.qr')).toBe(remainder.crypto.payment_uri);
    await accessible(page, 'remainder');
    await shot(page, '2-03-remainder');

    await sendExactlyToSucceeded(page, shop);
    const done = await shop.payment(payment.id);
    expect(done.status).toBe('succeeded');
    expect(done.events.map((e: { type: string }) => e.type)).toContain('remainder_paid');
    // the rest paid in full: the price arrived, said as before (only a payment accepted short says less; audit M1, 2026-11-30)
    await expect(page.locator('#view-succeeded [data-paid]:not([hidden])').innerText()).resolves.toBe('Thank you. Sandbox Café has received $100.00.');
    await shot(page, '2-04-succeeded');
    noErrors(watched);
    await page.close();
  });

  it('a remainder paid short, then its quote ends: the open page states what the payment holds now, not what it held at the first paint (audit page F6)', async () => {
    const { shop, payment, watched, page } = await shopAndPage({ amount: 10_000 });
    await choose(page);
    await page.click('#view-pay [data-simulate="underpaid"]');
    await visible(page, 'confirming'); // the transfer is recorded before the clock moves
    await shop.advance(30);
    await visible(page, 'underpaid');
    await shop.advance(16 * 60);
    await visible(page, 'remainder-wait');
    const requested = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
    expect(requested.status).toBe(201);
    await page.goto(`${origin()}${new URL(requested.body.data.url).pathname}${new URL(requested.body.data.url).search}`);
    await visible(page, 'pay');
    await page.click('#view-pay [data-simulate="underpaid"]'); // 9 of the 10
    await visible(page, 'confirming');
    await shop.advance(30);
    await visible(page, 'underpaid');
    // the payment's totals, not the remainder's own 9 (audit L4, 2026-11-30)
    await eventually(() => page.locator('#view-underpaid .facts').innerText(), (shown) => /^Received in all\s+99 USDC\s+Still due\s+1 USDC$/.test(shown));
    await shop.advance(16 * 60); // the remainder's quote ends, the page left open
    await visible(page, 'remainder-wait');
    const held = (await shop.payment(payment.id)).method;
    expect(held).toMatchObject({ amount: '99', expected_amount: '100' });
    const facts = () => Promise.all(['so-far', 'so-far-due'].map((f) => page.locator(`#view-remainder-wait [data-f="${f}"]`).textContent()));
    await eventually(facts, ([received, due]) => received === '99' && due === '1');
    await page.reload();
    await visible(page, 'remainder-wait');
    expect(await facts()).toEqual(['99', '1']); // the first paint says the same
    noErrors(watched);
    await page.close();
  });

  it('quote ended, part paid: the open page keeps asking, so the business accepting it shows; the succeeded view says what arrived, short, not the price (audit L5, M1, 2026-11-30)', async () => {
    const { shop, payment, watched, page } = await shopAndPage({ amount: 10_000 }, 'Short Shop');
    await choose(page);
    await page.click('#view-pay [data-simulate="underpaid"]');
    await visible(page, 'confirming');
    await shop.advance(30);
    await visible(page, 'underpaid');
    await shop.advance(16 * 60);
    await visible(page, 'remainder-wait');
    const accepted = await shop.postOnce(`/payments/${payment.id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ status: 'succeeded', amount: 10_000, amount_received: 9_000 });
    await visible(page, 'succeeded'); // no reload
    const paidWords = () => page.locator('#view-succeeded [data-paid]:not([hidden])').innerText();
    // without a reload the page cannot tell an acceptance from a payment completed elsewhere (a remainder): words true of both
    await expect(paidWords()).resolves.toBe('Thank you. This payment to Short Shop is settled: nothing more is due from you. Your receipt shows what arrived.');
    await page.reload();
    await visible(page, 'succeeded');
    await expect(paidWords()).resolves.toBe('Thank you. Short Shop has received $90.00, less than the price of $100.00, and accepted it as this payment: nothing more is due from you.');
    await accessible(page, 'succeeded, accepted short');
    noErrors(watched);
    await page.close();
  });

  it('long unbroken words (display name, description, support address) wrap: neither the page nor the receipt scrolls sideways at 375 px (audit L1, 2026-11-30)', async () => {
    const shop = await newShop();
    expect((await shop.patch('/checkout-settings', { display_name: 'PageAuditShopInternationalTradingCompanyLimited', support_email: 'customer.support@pageauditshopexample.com' })).status).toBe(200);
    const { payment, watched, page } = await openPayment(shop, { description: `Invoice INV2026113000000042ABCDEFGHJKLMNPQRSTUVWXYZ ${'X'.repeat(175)}` });
    const wide = () => page.evaluate<{ scroll: number; view: number }>('({ scroll: document.documentElement.scrollWidth, view: window.innerWidth })');
    const onPage = await wide();
    expect(onPage.view).toBe(375);
    expect(onPage.scroll).toBeLessThanOrEqual(onPage.view);
    const id = await choose(page);
    await sendExactlyToSucceeded(page, shop);
    expect(id).toBeTruthy();
    await page.goto(`${pageUrl(payment)}/receipt`);
    await page.locator('#receipt').waitFor();
    const onReceipt = await wide();
    expect(onReceipt.scroll).toBeLessThanOrEqual(onReceipt.view);
    await expect(page.locator('#test-banner').isVisible()).resolves.toBe(true);
    noErrors(watched);
    await page.close();
  });

  it('a second short transfer: the QR code of the rest follows what is still due, live and after a reload (an audit scanned the earlier rest)', async () => {
    const { shop, watched, page } = await shopAndPage({ amount: 10_000 });
    const first = await choose(page);
    await page.click('#view-pay [data-simulate="underpaid"]');
    await visible(page, 'confirming');
    await shop.advance(30);
    await visible(page, 'underpaid');
    const once = await getCheckout(shop, first);
    expect(once.crypto.remaining_amount).toBe('10');
    expect(await qrOf(page, '#view-underpaid img.qr')).toBe(once.crypto.remaining_payment_uri);
    // the wallet sends too little again: 9 of the 10
    expect((await shop.as(null).post(`/checkouts/${first}/mark-sent`, { simulate: 'underpaid' })).status).toBe(200);
    await shop.advance(30);
    const twice = await eventually(() => getCheckout(shop, first), (c) => c.status === 'awaiting_customer' && c.crypto.remaining_amount !== '10');
    expect(twice.crypto.remaining_payment_uri).not.toBe(once.crypto.remaining_payment_uri);
    await visible(page, 'underpaid');
    await eventually(() => page.locator('#view-underpaid [data-f="remaining"]').textContent(), (shown) => shown === twice.crypto.remaining_amount);
    await eventually(() => qrOf(page, '#view-underpaid img.qr'), (uri) => uri === twice.crypto.remaining_payment_uri);
    await page.reload();
    await visible(page, 'underpaid');
    expect(await qrOf(page, '#view-underpaid img.qr')).toBe(twice.crypto.remaining_payment_uri);
    // the rest sent: the confirming view counts what arrived in all, never calls the total one transfer (audit page F2)
    await page.click('#view-underpaid [data-simulate="exact"]');
    await visible(page, 'confirming');
    await eventually(() => page.locator('#confirming-seen').innerText(), (said) => said.startsWith('We see 100 USDC sent to this address in all.'));
    noErrors(watched);
    await page.close();
  });

  it('quote ended: a new quote for the same choice in one click', async () => {
    const { shop, payment, watched, page, ended } = await endedQuote('BTC');
    expect(await status(page)).toBe('The quote has ended.');
    await accessible(page, 'expired');
    await shot(page, '3-01-expired');

    await page.click('#new-quote');
    await visible(page, 'pay');
    const fresh = (await checkoutIdOf(page))!;
    expect(fresh).not.toBe(ended);
    const quote = await getCheckout(shop, fresh);
    expect(quote).toMatchObject({ status: 'open', payment_id: payment.id, crypto: { asset: 'BTC', network: 'bitcoin' } });
    expect(await qrOf(page, '#view-pay img.qr')).toBe(quote.crypto.payment_uri);
    // the countdown is measured on the business's clock (16 minutes ahead here), so the new quote shows its full life
    expect(await page.locator('#view-pay [data-f="countdown"]').textContent()).toMatch(/^1[45]:[0-5]\d$/);
    await shot(page, '3-02-new-quote');
    noErrors(watched);
    await page.close();
  });

  /**
   * A new shop's BTC quote on screen whose polls the test answers: first as the service answers a
   * checkout whose quote has ended while a transaction to its address (`pending`) waits in the
   * mempool (a simulated business sees no mempool); `answer(next)` then serves the checkout as the
   * service would next (mined, dropped).
   */
  async function heldQuote(pending: string) {
    const { shop, watched, page } = await shopAndPage();
    const id = await choose(page, { asset: 'BTC' });
    const real = await getCheckout(shop, id);
    const held = { ...real, expires_at: new Date(Date.parse(real.created_at) - 1000).toISOString(), crypto: { ...real.crypto, pending_tx_hash: pending } };
    const path = `**/api/v1/checkouts/${id}`;
    const serve = (data: unknown) => page.route(path, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ data }) }));
    await serve(held);
    const answer = async (change: { status: string; crypto: Record<string, unknown> }) => {
      await page.unroute(path);
      await serve({ ...held, status: change.status, updated_at: new Date().toISOString(), crypto: { ...held.crypto, ...change.crypto } });
    };
    return { watched, page, answer };
  }

  it('a transfer seen in the mempool holds the quote: the page says so instead of counting down, and does not show the quote ended (0023 addendum, 2026-11-29)', async () => {
    const pending = 'ab'.repeat(32);
    const { watched, page, answer } = await heldQuote(pending);
    await eventually(() => status(page), (text) => text?.startsWith('Your transfer was seen on the network.') === true, { what: 'the seen status', timeoutMs: 30_000 });
    expect(await page.locator('#view-pay').isVisible()).toBe(true);
    expect(await page.locator('#view-pay .countdown').innerText()).toBe('Quote valid for as long as your transfer is on its way');
    expect(await page.locator('#view-pay [data-pending]').innerText()).toBe(`Seen transaction ${pending}`);
    // funds on the way: the checkout can be neither replaced nor canceled (409), so no button offers it
    expect(await page.locator('#change-coin').isVisible()).toBe(false);
    expect(await page.locator('#view-pay [data-action="cancel"]').isVisible()).toBe(false);
    await accessible(page, 'pay');
    await shot(page, '3-03-seen-in-mempool');
    // mined: the next answer is the checkout confirming, and the page follows it
    await answer({ status: 'confirming', crypto: { pending_tx_hash: null, tx_hash: pending } });
    await visible(page, 'confirming');
    noErrors(watched);
    await page.close();
  });

  it('a transfer seen in the mempool then dropped after the quote ended: the page shows the quote ended, as without one (0023 addendum, 2026-11-29)', async () => {
    const pending = 'cd'.repeat(32);
    const { watched, page, answer } = await heldQuote(pending);
    await eventually(() => page.locator('#view-pay [data-pending]').innerText(), (text) => text === `Seen transaction ${pending}`, { what: 'the seen transaction', timeoutMs: 30_000 });
    // dropped: the service expires the checkout whose quote has ended
    await answer({ status: 'expired', crypto: { pending_tx_hash: null } });
    await visible(page, 'expired');
    expect(await status(page)).toBe('The quote has ended.');
    noErrors(watched);
    await page.close();
  });

  it('late payer: the claim form takes the transaction hash, shows errors in words next to the field, then the review', async () => {
    const { shop, payment, watched, page, ended } = await endedQuote();

    await page.click('#view-expired .claim summary');
    const form = page.locator('#view-expired .claim-form');
    await form.locator('button[type="submit"]').click();
    await expect(form.locator('[data-error="tx_hash"]').textContent()).resolves.toBe('Enter the transaction hash of your transfer.');
    await form.getByLabel('Transaction hash').fill('not-a-hash');
    await form.locator('button[type="submit"]').click();
    await form.locator('[data-error="tx_hash"]', { hasText: 'That is not a transaction hash on Ethereum.' }).waitFor(SHOWN);
    await expect(form.getByLabel('Transaction hash').getAttribute('aria-invalid')).resolves.toBe('true');
    const describedBy = await form.getByLabel('Transaction hash').getAttribute('aria-describedby');
    await expect(page.locator(`[id="${describedBy}"]`).textContent()).resolves.toMatch(/^That is not a transaction hash/);
    await shot(page, '4-01-claim-error');

    const hash = '0x' + 'ab'.repeat(32);
    await form.getByLabel('Transaction hash').fill(hash);
    await form.getByLabel(/E-mail/).fill('late@example.com');
    await form.locator('button[type="submit"]').click();
    await visible(page, 'review');
    expect(await page.locator('#view-review [data-claimed]').isVisible()).toBe(true);
    expect(await status(page)).toBe('Under review.');
    expect(await getCheckout(shop, ended)).toMatchObject({ status: 'needs_review', review_reason: 'claimed' });
    const review = await shop.payment(payment.id);
    expect(review.status).toBe('needs_review');
    expect(review.events.find((e: { type: string }) => e.type === 'claimed').data.tx_hash).toBe(hash);
    await accessible(page, 'review');
    await shot(page, '4-02-under-review');
    // the one console error is the refused claim's 400, which the page showed in words
    noErrors(watched, [/status of 400/]);
    expect(watched.errors).toHaveLength(1);
    await page.close();
  });

  it('the business cancels the payment while its quote is on screen: the page closes as a reload would, nothing to pay (audit, 2026-11-28)', async () => {
    const { shop, payment, watched, page } = await shopAndPage({}, 'Closing Shop');
    await choose(page);
    expect((await shop.post(`/payments/${payment.id}/cancel`, {})).status).toBe(200);
    await visible(page, 'closed'); // on the next poll, not "Choose how to pay"
    expect(await page.locator('#closed-title').textContent()).toBe('This payment was canceled');
    expect(await page.locator('#closed-reason').textContent()).toBe('Closing Shop canceled it. Nothing more is expected from you.');
    expect(await status(page)).toBe('This payment is closed.');
    await accessible(page, 'closed by the business');
    noErrors(watched);
    await page.close();
  });

  /** The closed view of an expired payment: its words, and no choice of coin, network or rail left on screen. */
  async function expectExpiredAndClosed(page: Page) {
    await visible(page, 'closed');
    expect(await page.locator('#closed-title').textContent()).toBe('This payment can no longer be paid');
    expect(await page.locator('#closed-reason').textContent()).toBe('It expired before it was paid. Nothing more is expected from you.');
    expect(await status(page)).toBe('This payment is closed.');
    for (const selector of ['#choose-form', '#asset', '#network', '#choose-submit', '#new-quote']) expect({ selector, hidden: await page.locator(selector).isHidden() }).toEqual({ selector, hidden: true });
  }

  it('a payment that expires while its page offers the choice closes at expires_at: the expired state, no selector left (audit, 2026-11-28)', async () => {
    const { watched, page } = await shopAndPage({ expires_at: new Date(Date.now() + 8_000).toISOString() }, 'Closing Time');
    await visible(page, 'choose');
    expect(await page.locator('#asset').isEditable()).toBe(true);
    // nothing pressed, nothing reloaded: at expires_at (the business's clock) the page closes
    await expectExpiredAndClosed(page);
    await accessible(page, 'closed, payment expired');
    await shot(page, '6-01-payment-expired');
    noErrors(watched);
    await page.close();
  });

  it('a choice the API refuses with payment_expired closes the page instead of leaving the selector active (audit, 2026-11-28)', async () => {
    const { shop, payment, watched, page } = await shopAndPage({ expires_at: new Date(Date.now() + 10 * 60_000).toISOString() }, 'Closing Time');
    await visible(page, 'choose');
    await shop.advance(11 * 60); // the business's clock passes expires_at: the page (timing it from the first paint) does not know
    expect((await shop.payment(payment.id)).status).toBe('failed');
    await page.click('#choose-submit');
    await expectExpiredAndClosed(page);
    // the one console error is the refused choice's 410, which closed the page
    noErrors(watched, [/status of 410/]);
    expect(watched.errors).toHaveLength(1);
    await page.close();
  });

  it('the quote’s end is a countdown on the business’s clock, the same in any time zone and with a wrong computer clock: no wall-clock time (audit, 2026-11-28)', async () => {
    const shop = await newShop();
    await shop.advance(3 * 3600); // the business's test clock runs 3 h ahead of the wall
    const payment = await shop.createPayment({ amount: 10_000 });
    // a customer far away whose computer's clock is 47 minutes slow
    const watched = await watchedPage(browser.context);
    const { page } = watched;
    const devtools = await browser.context.newCDPSession(page);
    await devtools.send('Emulation.setTimezoneOverride', { timezoneId: 'Pacific/Kiritimati' });
    await page.addInitScript(() => {
      const wall = Date.now.bind(Date);
      Date.now = () => wall() - 47 * 60_000;
    });
    expectPageHeaders(await page.goto(pageUrl(payment)));
    expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe('Pacific/Kiritimati');
    await page.click('#choose-submit');
    await visible(page, 'pay');
    expect(await page.locator('#view-pay .countdown').innerText()).toMatch(/^Quote valid for 1[45]:[0-5]\d$/);
    expect(await page.locator('#checkout time').count()).toBe(0);
    await page.click('#view-pay [data-simulate="underpaid"]');
    await visible(page, 'confirming');
    await shop.advance(30);
    await visible(page, 'underpaid');
    // the short transfer's quote ends 15 minutes after it was sent (§4 remainder_unavailable): a countdown there too
    expect(await page.locator('#view-underpaid .countdown').innerText()).toMatch(/^Quote valid for 1[0-5]:[0-5]\d$/);
    await shot(page, '7-01-countdown-elsewhere');
    noErrors(watched);
    await page.close();
  });

  /** The countdown on `view` in seconds. */
  async function countdownSeconds(page: Page, view: 'pay' | 'underpaid'): Promise<number> {
    const shown = (await page.locator(`#view-${view} [data-f="countdown"]`).textContent()) ?? '';
    const parts = /^(?:(\d+):)?(\d+):(\d\d)$/.exec(shown);
    if (!parts) throw new Error(`countdown "${shown}"`);
    return Number(parts[1] ?? 0) * 3600 + Number(parts[2]) * 60 + Number(parts[3]);
  }

  it('canceling a checkout that holds part of the payment: the page says what arrived and that the business asks for the rest, never "Pay again"; the same for a canceled remainder (audit M1, L6, 2026-11-29)', async () => {
    const { shop, payment, watched, page } = await shopAndPage({ amount: 10_000 }, 'Half Shop');
    const first = await choose(page);
    await page.click('#view-pay [data-simulate="underpaid"]');
    await visible(page, 'confirming');
    await shop.advance(120); // the confirmations, and more: the business's clock moves 2 minutes while the page is open
    await visible(page, 'underpaid');
    // the page follows the business's clock from the checkout's times: the short transfer's quote (15 minutes from the
    // transfer itself, decision 0009 addendum 2026-11-30) shows at most 15:00, not 15 minutes plus the clock's move (L6)
    const short = await getCheckout(shop, first);
    expect(Date.parse(short.expires_at) - Date.parse(short.sent_at)).toBe(15 * 60_000);
    const left = await countdownSeconds(page, 'underpaid');
    expect(left).toBeLessThanOrEqual(15 * 60);
    expect(left).toBeGreaterThan(12 * 60);
    // canceling here keeps what arrived with the payment: the page says so before the customer presses
    expect(await page.locator('#view-underpaid [data-cancel-warning]').innerText()).toBe('If you cancel, what you already sent stays with this payment and is not sent back; only Half Shop can then ask you for the rest.');
    await expect(page.locator('#view-underpaid [data-action="cancel"]').getAttribute('aria-describedby')).resolves.toBe('cancel-warning-underpaid');
    await accessible(page, 'underpaid with the cancel warning');

    await page.click('#view-underpaid [data-action="cancel"]');
    const expectCanceledPart = async (received: string, due: string) => {
      await visible(page, 'canceled-part');
      expect(await page.locator('#view-canceled-part [data-f="so-far"]').textContent()).toBe(received);
      expect(await page.locator('#view-canceled-part [data-so-far-due] [data-f="so-far-due"]').textContent()).toBe(due);
      expect(await page.locator('#view-canceled-part').innerText()).toContain('Only Half Shop can ask you for it');
      expect(await page.locator('#view-canceled-part').innerText()).not.toContain('Nothing more is expected');
      expect(await page.locator('[data-action="choose"]:visible').count()).toBe(0); // no "Pay again": POST /checkouts answers 409 payment_paid
      expect(await status(page)).toBe('Checkout canceled. Part of the payment arrived.');
    };
    await expectCanceledPart('90', '10');
    expect(await getCheckout(shop, first)).toMatchObject({ status: 'canceled', canceled_by: 'customer' });
    expect((await shop.payment(payment.id)).status).toBe('underpaid'); // the API's rule stands: funds stay with the payment
    await accessible(page, 'canceled with part of the payment');
    await shot(page, '8-01-canceled-part');
    await page.reload();
    await expectCanceledPart('90', '10'); // the first paint agrees

    // the business asks for the rest; "Check for a way to pay the rest" (the bare page URL) finds it
    expect((await shop.postOnce(`/payments/${payment.id}/request-remainder`)).status).toBe(201);
    await page.click('#resume-link-canceled');
    await visible(page, 'pay');
    await expect(page.locator('#pay-title').textContent()).resolves.toBe('Send the rest');
    expect(await page.locator('#view-pay [data-cancel-warning]').isVisible()).toBe(true);
    await expect(page.locator('#view-pay [data-action="cancel"]').getAttribute('aria-describedby')).resolves.toBe('cancel-warning-pay');
    // canceling the remainder checkout: the payment's totals, not the remainder's own zero; no "cannot take crypto"
    await page.click('#view-pay [data-action="cancel"]');
    await expectCanceledPart('90', '10');
    expect(await page.locator('#view-choose').isHidden()).toBe(true);
    expect((await shop.payment(payment.id)).status).toBe('underpaid');
    await page.reload();
    await expectCanceledPart('90', '10');
    await shot(page, '8-02-remainder-canceled');
    noErrors(watched);
    await page.close();
  });

  it('a payment that expires before its quote ends: the countdown counts to the payment’s expires_at, and the page closes then (audit M2, 2026-11-29)', async () => {
    const { shop, payment, watched, page } = await shopAndPage({ expires_at: new Date(Date.now() + 3 * 60_000).toISOString() }, 'Soon Shop');
    const id = await choose(page);
    const quote = await getCheckout(shop, id);
    expect(Date.parse(quote.expires_at) - Date.parse(payment.expires_at)).toBeGreaterThan(10 * 60_000); // the quote itself runs 15 minutes
    const left = await countdownSeconds(page, 'pay');
    expect(left).toBeLessThanOrEqual(3 * 60);
    expect(left).toBeGreaterThan(2 * 60);
    await shot(page, '9-01-payment-expires-first');
    // the business's clock passes the payment's expires_at: the payment fails its checkout, the page shows it closed
    // (set aside first, so the simulated chain sends nothing 20 s in: the quote stays open on screen)
    expect((await shop.as(null).post(`/checkouts/${id}/supersede`)).status).toBe(200);
    await shop.advance(4 * 60);
    await expectExpiredAndClosed(page);
    expect((await shop.payment(payment.id)).status).toBe('failed');
    noErrors(watched);
    await page.close();
  });

  it('an overpaid checkout: the succeeded view says how much more was sent (audit L1, 2026-11-29)', async () => {
    const { shop, watched, page } = await shopAndPage({ amount: 2_500 }, 'Over Shop');
    const id = await choose(page, { asset: 'USDC', network: 'polygon' });
    expect((await shop.as(null).post(`/checkouts/${id}/mark-sent`, { simulate: 'overpaid' })).status).toBe(200);
    await visible(page, 'confirming');
    await shop.advance(180);
    await visible(page, 'succeeded');
    const done = await getCheckout(shop, id);
    expect(done.crypto.overpaid_amount).toBe('2.5');
    expect(await page.locator('#view-succeeded [data-overpaid]').innerText()).toBe('You sent 2.5 USDC more than the amount due. Over Shop has it; ask them about the difference.');
    await accessible(page, 'succeeded, overpaid');
    await page.reload();
    expect(await page.locator('#view-succeeded [data-overpaid]').innerText()).toBe('You sent 2.5 USDC more than the amount due. Over Shop has it; ask them about the difference.');
    noErrors(watched);
    await page.close();
  });

  it('a proxy’s 502 page and a lost connection are said in words, and the page recovers when the service answers again (audit L5, 2026-11-29)', async () => {
    const { shop, watched, page } = await shopAndPage();
    await page.route('**/api/v1/checkouts', (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body>Bad Gateway</body></html>' }));
    await page.click('#choose-submit');
    await page.locator('#choose-error', { hasText: 'The payment service is not answering properly right now. Try again in a moment.' }).waitFor(SHOWN);
    await page.unroute('**/api/v1/checkouts');
    const id = await choose(page);
    expect(await page.locator('#connection').isHidden()).toBe(true);
    // the status polls fail: the page says it lost contact
    await page.route(`**/api/v1/checkouts/${id}`, (route) => route.abort('connectionrefused'));
    await page.locator('#connection', { hasText: 'This page has lost contact with the payment service and keeps trying.' }).waitFor(SHOWN);
    await accessible(page, 'lost contact');
    // the test-mode banner is in a landmark: axe's "region" rule (moderate) finds nothing outside one (audit L4, 2026-11-29)
    expect(await page.evaluate(`axe.run(document, { runOnly: ['region'] }).then(r => r.violations.flatMap(v => v.nodes.map(n => n.target.join(' '))))`)).toEqual([]);
    await shot(page, '10-01-lost-contact');
    // answers again: the notice goes, and the page follows the checkout (a transfer sent meanwhile)
    await page.unroute(`**/api/v1/checkouts/${id}`);
    expect((await shop.as(null).post(`/checkouts/${id}/mark-sent`, { simulate: 'exact' })).status).toBe(200);
    await page.locator('#connection').waitFor({ state: 'hidden', timeout: 40_000 });
    await page.locator('#view-confirming').waitFor({ state: 'visible', timeout: 40_000 });
    // the 502 and the refused polls are the only console errors
    noErrors(watched, [/status of 502/, /ERR_CONNECTION_REFUSED/]);
    await page.close();
  });

  it('cancel: the checkout is canceled by the customer and the page goes to the cancel_url', async () => {
    const { shop, payment, watched, page } = await shopAndPage({ cancel_url: `${SHOP}/cart` });
    const id = await choose(page);
    await shot(page, '5-01-before-cancel');
    await page.click('#view-pay [data-action="cancel"]');
    await page.waitForURL(`${SHOP}/cart`, SHOWN);
    expect(await getCheckout(shop, id)).toMatchObject({ status: 'canceled', canceled_by: 'customer' });
    expect((await shop.payment(payment.id)).status).toBe('pending'); // an API payment can be paid again until it expires
    noErrors(watched);

    // without a cancel_url the page says so and offers to pay again
    const second = (await openPayment(shop)).watched;
    await choose(second.page);
    await second.page.click('#view-pay [data-action="cancel"]');
    await visible(second.page, 'canceled');
    await accessible(second.page, 'canceled');
    await shot(second.page, '5-02-canceled');
    await second.page.click('#view-canceled [data-action="choose"]');
    await visible(second.page, 'choose');
    noErrors(second);
    await page.close();
    await second.page.close();
  });
});
