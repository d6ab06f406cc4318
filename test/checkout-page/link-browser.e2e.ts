import type { Client } from '../support/fixtures';
import { appPerSuite } from '../support/fixtures';
import { SHOWN, accessible, atUrl, appOnItsOwnPort, chooseCard, chromiumPerSuite, noErrors, pageSteps, qrOf, shot } from './chromium';

/**
 * A payment link's page walked by a customer in real headless Chromium (issues 12 and 13;
 * decisions 0027, 0030): the link's `url` answers the page, the customer's choice opens a checkout
 * with `link_code` (which makes the link's payment), `?s=` resumes it, the receipt is the one of
 * that payment; a canceled checkout fails the link payment and "Pay again" makes a new one; a card
 * paid on the processor's secure page comes back to the link's page. The app listens on a port
 * chosen beforehand so the processor's return URL is a real origin. Screenshots go to
 * test-artifacts/checkout-page/link-*.
 */

const SHOP = 'https://shop.example';
const SECURE_PAGE = /\/simulated-processor\/attempts\/sim_[A-Za-z0-9_-]+$/;

describe('a payment link’s page in Chromium (a customer buys through a link)', () => {
  // declared before the app's hooks, so the browser closes before the app
  const browser = chromiumPerSuite(async (b) => {
    await b.context.route(`${SHOP}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!DOCTYPE html><html lang="en"><title>Shop</title><h1>Back at the shop</h1></html>' }));
  });
  const suite = appPerSuite(appOnItsOwnPort);
  const { openPage, pageUrl, checkoutIdOf, choose, status, visible, getCheckout, sendExactlyToSucceeded, ...steps } = pageSteps(browser, () => suite.api);

  async function newLink(shop: Client, fields: Record<string, unknown> = {}): Promise<{ id: string; code: string; url: string }> {
    const answer = await shop.post('/links', { name: 'Blue mug', description: 'A blue mug, 350 ml', amount: 2_500, currency: 'USD', success_url: `${SHOP}/thanks`, ...fields });
    expect(answer.status).toBe(201);
    return answer.body.data;
  }

  /** A new shop's link (`fields` over newLink's), its page open and watched. */
  async function linkPage(fields: Record<string, unknown> = {}) {
    const shop = await steps.newShop('Mug House');
    const link = await newLink(shop, fields);
    const watched = await openPage(pageUrl(link));
    return { shop, link, watched, page: watched.page };
  }

  it('crypto: the link’s page, the e-mail it asks, the link’s payment made by the checkout, paid to succeeded, its receipt; the link page again starts afresh', async () => {
    const { shop, link, watched, page } = await linkPage({ ask_email: true });
    // the link's name heads the page, its description under it (decision 0030 addendum, 2026-11-30: the name was shown nowhere)
    await expect(page.locator('h1').textContent()).resolves.toBe('Blue mug');
    await expect(page.locator('#detail').textContent()).resolves.toBe('A blue mug, 350 ml');
    await expect(page.title()).resolves.toBe('Pay Mug House — Blue mug');
    await expect(page.locator('#price').textContent()).resolves.toBe('$25.00');
    expect(await status(page)).toBe('Choose how to pay.');
    expect((await shop.get(`/payments?link_id=${link.id}`)).body.data).toEqual([]); // looking at the page makes no payment
    // so the footer names none yet (it said a bare "Payment"; audit, 2026-11-28)
    expect(await page.locator('footer').innerText()).not.toMatch(/Payment/);
    expect(await page.locator('#payment-ref').isHidden()).toBe(true);
    await accessible(page, 'link choose');
    await shot(page, 'link-1-01-choose');

    await page.selectOption('#asset', 'USDC');
    await page.selectOption('#network', 'ethereum');
    await page.getByLabel('E-mail for the receipt').fill('ann@example.com');
    await page.click('#choose-submit');
    await visible(page, 'pay');
    const id = (await checkoutIdOf(page))!;
    await atUrl(page, pageUrl(link, `?s=${id}`));
    const checkout = await getCheckout(shop, id);
    expect(checkout).toMatchObject({ status: 'open', link_id: link.id, crypto: { asset: 'USDC', network: 'ethereum', amount: '25' } });
    const payment = await shop.payment(checkout.payment_id);
    expect(payment).toMatchObject({ status: 'pending', link_id: link.id, url: null, customer_id: expect.stringMatching(/^cst_/), amount: 2_500 });
    // the footer names the payment the checkout made, as a payment's own page names its payment
    await expect(page.locator('#payment-ref').innerText()).resolves.toBe(`Payment ${payment.id}`);
    expect(await qrOf(page, '#view-pay img.qr')).toBe(checkout.crypto.payment_uri);
    await accessible(page, 'link pay');
    await shot(page, 'link-1-02-pay');

    // a reload resumes the same checkout (?s=)
    await page.reload();
    await visible(page, 'pay');
    await expect(page.locator('#view-pay [data-f="address"]').textContent()).resolves.toBe(checkout.crypto.address);
    await expect(page.locator('#payment-ref').innerText()).resolves.toBe(`Payment ${payment.id}`);

    await sendExactlyToSucceeded(page, shop);
    expect((await shop.payment(payment.id)).status).toBe('succeeded');
    await expect(page.locator('#success-link').getAttribute('href')).resolves.toBe(`${SHOP}/thanks`);
    await shot(page, 'link-1-03-succeeded');

    await page.click('#receipt-link');
    await page.locator('#receipt').waitFor(SHOWN);
    expect(page.url()).toBe(pageUrl(link, `/receipt?s=${id}`));
    const facts = await page.locator('#receipt-facts').innerText();
    expect(facts).toMatch(/Status\s+Paid/);
    expect(facts).toMatch(/Total\s+\$25\.00/);
    await accessible(page, 'link receipt');
    await shot(page, 'link-1-04-receipt');
    noErrors(watched);

    // the link sells again: its page without ?s= is a fresh choice, and the link counts one payment
    const again = await openPage(pageUrl(link));
    await visible(again.page, 'choose');
    expect((await shop.get(`/links/${link.id}`)).body.data.payments_count).toBe(1);
    await page.close();
    await again.page.close();
  });

  it('cancel fails the link’s payment; "Pay again" makes a new payment on the link', async () => {
    const { shop, link, watched, page } = await linkPage();
    const first = await getCheckout(shop, await choose(page));
    await page.click('#view-pay [data-action="cancel"]');
    await visible(page, 'canceled');
    expect((await shop.payment(first.payment_id)).status).toBe('failed'); // §3: a link payment fails when its checkout is canceled
    await accessible(page, 'link canceled');
    await shot(page, 'link-2-01-canceled');

    // the server's first paint of that checkout agrees: canceled, pay again
    await page.reload();
    await visible(page, 'canceled');

    await page.click('#view-canceled [data-action="choose"]');
    await visible(page, 'choose');
    const second = await getCheckout(shop, await choose(page));
    expect(second.payment_id).not.toBe(first.payment_id);
    await expect(page.locator('#payment-ref').innerText()).resolves.toBe(`Payment ${second.payment_id}`); // the new payment, not the failed one
    expect((await shop.payment(second.payment_id)).status).toBe('pending');
    const payments = (await shop.get(`/payments?link_id=${link.id}`)).body.data.map((p: { id: string; status: string }) => [p.id, p.status]);
    expect(payments.sort()).toEqual([
      [first.payment_id, 'failed'],
      [second.payment_id, 'pending'],
    ].sort());
    expect(await qrOf(page, '#view-pay img.qr')).toBe(second.crypto.payment_uri);
    noErrors(watched);
    await page.close();
  });

  /** A new shop's $100 link, its page open, USDC on Ethereum chosen and paid short (90, confirmed): the page shows it underpaid. */
  async function underpaidOnLinkPage() {
    const { shop, link, watched, page } = await linkPage({ amount: 10_000 });
    const first = await choose(page); // USDC on Ethereum
    await page.click('#view-pay [data-simulate="underpaid"]');
    await visible(page, 'confirming');
    await shop.advance(30);
    await visible(page, 'underpaid');
    return { shop, link, watched, page, first };
  }

  it('underpaid on a link: the remainder the business requests is paid on the link’s page (its url, and the page’s own "way to pay the rest")', async () => {
    const { shop, link, watched, page, first } = await underpaidOnLinkPage();
    await shop.advance(16 * 60); // the quote ends
    await visible(page, 'remainder-wait');
    const paymentId = (await getCheckout(shop, first)).payment_id;
    const requested = await shop.postOnce(`/payments/${paymentId}/request-remainder`);
    expect(requested.status).toBe(201);
    const { url, checkout: remainder } = requested.body.data;
    expect(url).toBe(`${link.url}?s=${remainder.id}`);

    // the page the customer still has open finds the remainder through its own link
    await page.click('#resume-link');
    await visible(page, 'pay');
    await expect(page.locator('#pay-title').textContent()).resolves.toBe('Send the rest');
    await expect(page.locator('#view-pay [data-f="crypto-amount"]').textContent()).resolves.toBe('10');
    expect(await qrOf(page, '#view-pay img.qr')).toBe(remainder.crypto.payment_uri);
    await accessible(page, 'link remainder');
    await shot(page, 'link-3-01-remainder');

    await sendExactlyToSucceeded(page, shop);
    expect((await shop.payment(paymentId)).status).toBe('succeeded');
    noErrors(watched);
    await page.close();
  });

  it('underpaid on a link, then canceled by its customer: what arrived, no "Pay again"; the page’s "way to pay the rest" finds the remainder the business requests (audit M1, 2026-11-29)', async () => {
    const { shop, link, watched, page, first } = await underpaidOnLinkPage();
    await page.click('#view-underpaid [data-action="cancel"]');
    await visible(page, 'canceled-part');
    await expect(page.locator('#view-canceled-part [data-f="so-far"]').textContent()).resolves.toBe('90');
    expect(await page.locator('[data-action="choose"]:visible').count()).toBe(0);
    const paymentId = (await getCheckout(shop, first)).payment_id;
    expect((await shop.payment(paymentId)).status).toBe('underpaid'); // what arrived stays with the link's payment
    await accessible(page, 'link canceled with part of the payment');

    const requested = await shop.postOnce(`/payments/${paymentId}/request-remainder`);
    expect(requested.status).toBe(201);
    const { checkout: remainder } = requested.body.data;
    // the link's page at the canceled checkout (?s=) follows the payment to the remainder checkout
    await expect(page.locator('#resume-link-canceled').getAttribute('href')).resolves.toBe(`${new URL(pageUrl(link)).pathname}?s=${first}`);
    await page.click('#resume-link-canceled');
    await visible(page, 'pay');
    await expect(page.locator('#pay-title').textContent()).resolves.toBe('Send the rest');
    await expect(page.locator('#view-pay [data-f="crypto-amount"]').textContent()).resolves.toBe('10');
    expect(await qrOf(page, '#view-pay img.qr')).toBe(remainder.crypto.payment_uri);
    noErrors(watched);
    await page.close();
  });

  it('card: the secure page sends the customer back to the link’s page, which confirms the attempt', async () => {
    const { shop, link, watched, page } = await linkPage();
    await chooseCard(page, { email: 'cy@example.com', country: 'US' });
    await page.click('#choose-submit');
    await visible(page, 'card');
    const id = (await checkoutIdOf(page))!;
    await page.click('#card-pay');
    await page.waitForURL(SECURE_PAGE, SHOWN);
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry (MM/YY)').fill('12/39');
    await page.getByLabel('CVC').fill('123');
    await page.getByLabel('Name on card').fill('Cy Example');
    await page.getByRole('button', { name: 'Pay' }).click();
    await visible(page, 'succeeded');
    await atUrl(page, pageUrl(link, `?s=${id}`));
    const checkout = await getCheckout(shop, id);
    expect(checkout).toMatchObject({ status: 'completed', link_id: link.id });
    expect(await shop.payment(checkout.payment_id)).toMatchObject({ status: 'succeeded', link_id: link.id, method: { rail: 'card' } });
    await shot(page, 'link-4-01-card-succeeded');
    noErrors(watched);
    await page.close();
  });
});
