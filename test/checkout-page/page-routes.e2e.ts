import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { readPageAssets } from '@lib/checkout-page';
import { TestApi, appPerSuite, businessWithKey, startApp } from '../support/fixtures';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw GET on the server's root (the page lives outside /api/v1). */
function get(api: TestApi, path: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: api.port, method: 'GET', path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The page's path for a payment: its url's path (the url's host is CHECKOUT_BASE_URL's, localhost:0 under test). */
const pathOf = (url: string) => new URL(url).pathname;

const CSP_DIRECTIVES = ["default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"];

function expectSecurityHeaders(answer: Raw) {
  const csp = String(answer.headers['content-security-policy']);
  for (const directive of CSP_DIRECTIVES) expect(csp.split('; ')).toContain(directive);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['referrer-policy']).toBe('no-referrer');
}

/** The page's JSON data block, parsed as the script parses it. */
function pageData(html: string) {
  const match = /<script type="application\/json" id="checkout-data">([\s\S]*?)<\/script>/.exec(html);
  if (!match) throw new Error('no data block');
  return JSON.parse(match[1]);
}

const HOSTILE = `Mug <script>alert("x")</script> & "quotes" 'too' </script><!--`;

/**
 * The hosted checkout page's routes over real HTTP (decision 0027): the page at the path of
 * CHECKOUT_BASE_URL, its headers, escaping, the choices it offers, the QR code route bound to a
 * checkout of the payment, the receipt page and the assets. The browser walks are in browser.e2e.ts.
 */
describe('checkout page routes (GET /checkout/<code>, outside /api/v1)', () => {
  const suite = appPerSuite(
    () => startApp('embedded', { TRUSTED_PROXIES: 'loopback' }),
    async (api) => ({
      shop: await businessWithKey(api, true, 'Sandbox <b>Shop</b>'),
      live: await businessWithKey(api, false, 'Live Shop'),
    }),
  );

  it('serves the page at the path of each payment url, with a strict CSP, every business and payment value escaped', async () => {
    const payment = await suite.shop.client.createPayment({ description: HOSTILE, amount: 123_456, currency: 'EUR' });
    expect(pathOf(payment.url)).toMatch(/^\/checkout\/[A-Za-z0-9]+$/);
    const page = await get(suite.api, pathOf(payment.url));
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['service-request-id']).toMatch(/^req_/);
    expectSecurityHeaders(page);
    expect(page.body).toContain('<html lang="en">');
    // the description and the business name only ever appear escaped
    expect(page.body).not.toContain('<script>alert');
    expect(page.body).not.toContain('<b>Shop</b>');
    expect(page.body).toContain('Mug &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quotes&quot; &#39;too&#39; &lt;/script&gt;&lt;!--');
    expect(page.body).toContain('Sandbox &lt;b&gt;Shop&lt;/b&gt;');
    expect(page.body).toContain('€1,234.56');
    // no inline script or style: the only scripts are the first-party file and the JSON data block
    const scripts = [...page.body.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
    expect(scripts).toEqual([expect.stringMatching(/^ src="\/checkout\/assets\/checkout\.js\?v=[0-9a-f]{16}" defer$/), ' type="application/json" id="checkout-data"']);
    expect(page.body).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
    // the data block holds the same text, unescaped once parsed, and cannot close its element
    const data = pageData(page.body);
    expect(data.payment).toEqual({ id: payment.id, status: 'pending', amount: 123_456, currency: 'EUR', amount_text: '€1,234.56', description: HOSTILE, success_url: null, cancel_url: null, expires_at: payment.expires_at, received: null, amount_received: 0, amount_received_text: null });
    expect(data.business).toEqual({ name: 'Sandbox <b>Shop</b>', support_email: 'help@shop.example', simulated: true });
    // the defaults of the checkout settings: both rails, no e-mail asked
    expect(data.rails).toEqual(['crypto', 'card']);
    expect(data.ask_email).toBe(false);
    expect(data.checkout).toBeNull();
    // public fields only: nothing of the business's side of the payment
    expect(JSON.stringify(data)).not.toMatch(/reporting|fee_rate_bps|customer_id|metadata/);
  });

  it('offers a simulated business every coin and network its wallet receives on, and shows the test-mode banner', async () => {
    const payment = await suite.shop.client.createPayment();
    const page = await get(suite.api, pathOf(payment.url));
    const data = pageData(page.body);
    // the registry's order: coins, then the networks each is carried on
    expect(data.options.map((o: { asset: string; network: string }) => `${o.asset}@${o.network}`)).toEqual([
      'USDC@ethereum', 'USDC@polygon', 'USDC@base', 'USDC@arbitrum', 'USDC@solana',
      'USDT@ethereum', 'USDT@polygon', 'USDT@arbitrum', 'USDT@solana',
      'BTC@bitcoin', 'ETH@ethereum', 'ETH@base', 'ETH@arbitrum', 'SOL@solana',
    ]);
    expect(data.options[0]).toEqual({ asset: 'USDC', network: 'ethereum', asset_name: 'USD Coin', network_name: 'Ethereum' });
    expect(page.body).toContain('id="test-banner"');
    expect(page.body).toMatch(/<option value="USDC">USD Coin \(USDC\)<\/option>/);
    expect(data.rails).toEqual(['crypto', 'card']);
  });

  it('offers Card only for a card price ($5 to $10,000): a $2 or a $20,000 payment is crypto alone', async () => {
    for (const [amount, rails] of [[200, ['crypto']], [2_000_000, ['crypto']], [500, ['crypto', 'card']]] as const) {
      const payment = await suite.shop.client.createPayment({ amount });
      const data = pageData((await get(suite.api, pathOf(payment.url))).body);
      expect({ amount, rails: data.rails }).toEqual({ amount, rails });
    }
  });

  it('offers a live business without a wallet no coin (POST /checkouts would answer not_accepting), and no test banner', async () => {
    const payment = await suite.live.client.createPayment();
    const page = await get(suite.api, pathOf(payment.url));
    expect(page.status).toBe(200);
    expect(pageData(page.body).options).toEqual([]);
    expect(page.body).toContain('id="no-coins"');
    // no card processor takes a live business's cards yet (decision 0026): no Card choice, crypto alone
    expect(pageData(page.body).rails).toEqual(['crypto']);
    expect(page.body).not.toContain('value="card"');
    expect(page.body).not.toContain('id="card-fields"');
    const card = await suite.live.client.as(null).postOnce('/checkouts', { payment_code: payment.url.split('/').pop(), rail: 'card', email: 'ann@example.com', country: 'US' });
    expect(card.body.error).toMatchObject({ code: 'rail_unavailable', field: 'rail' });
    expect(page.body).not.toContain('id="test-banner"');
    const refused = await suite.live.client.as(null).postOnce('/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'USDC', network: 'ethereum' });
    expect(refused.body.error.code).toBe('not_accepting');
  });

  /** A payment of the shop with its checkout open, and the checkout of another of its payments (a foreign `?s=`). */
  async function checkoutAndForeign() {
    const shop = suite.shop.client;
    const payment = await shop.createPayment();
    const other = await shop.createPayment();
    return { payment, checkout: await shop.openCheckout(payment), foreign: await shop.openCheckout(other) };
  }

  it('resumes ?s=<checkout> only for a checkout of this payment; otherwise the payment’s current checkout', async () => {
    const { payment, checkout: first, foreign } = await checkoutAndForeign();
    const resumed = pageData((await get(suite.api, `${pathOf(payment.url)}?s=${first.id}`)).body);
    expect(resumed.checkout).toMatchObject({ id: first.id, status: 'open', crypto: { payment_uri: first.crypto.payment_uri } });
    expect(resumed.checkout).not.toHaveProperty('email'); // the public checkout, as GET /checkouts/{id} without a key
    const notOurs = pageData((await get(suite.api, `${pathOf(payment.url)}?s=${foreign.id}`)).body);
    expect(notOurs.checkout.id).toBe(first.id);
    const bare = await get(suite.api, pathOf(payment.url));
    expect(bare.body).toContain('data-view="pay"');
    expect(bare.body).toContain(`/qr.svg?s=${first.id}"`);
    expect(bare.body).not.toContain('part=remaining'); // nothing is due apart from the quote: no image asks for it
  });

  it('answers the QR code of a checkout of this payment only, as SVG; 404 for another payment’s checkout or none', async () => {
    const { payment, checkout, foreign } = await checkoutAndForeign();
    const qr = await get(suite.api, `${pathOf(payment.url)}/qr.svg?s=${checkout.id}`);
    expect(qr.status).toBe(200);
    expect(qr.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(qr.headers['x-content-type-options']).toBe('nosniff');
    expect(String(qr.headers['content-security-policy'])).toContain("default-src 'none'");
    expect(qr.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    for (const path of [`${pathOf(payment.url)}/qr.svg?s=${foreign.id}`, `${pathOf(payment.url)}/qr.svg`, `${pathOf(payment.url)}/qr.svg?s=chk_nope`, `${pathOf(payment.url)}/qr.svg?s=${checkout.id}&part=remaining`, `/checkout/nosuchcode/qr.svg?s=${checkout.id}`]) {
      const refused = await get(suite.api, path);
      expect({ path, status: refused.status }).toEqual({ path, status: 404 });
      expect(refused.body).not.toContain('<svg');
    }
  });

  it('a page link with a trailing slash leads to the page, its query kept (as mail and chat apps pass links on)', async () => {
    const payment = await suite.shop.client.createPayment();
    const checkout = await suite.shop.client.openCheckout(payment);
    for (const [path, to] of [
      [`${pathOf(payment.url)}/`, pathOf(payment.url)],
      [`${pathOf(payment.url)}/?s=${checkout.id}`, `${pathOf(payment.url)}?s=${checkout.id}`],
      [`${pathOf(payment.url)}/receipt/`, `${pathOf(payment.url)}/receipt`],
    ]) {
      const moved = await get(suite.api, path);
      expect({ path, status: moved.status, location: moved.headers.location }).toEqual({ path, status: 301, location: to });
    }
    expect((await get(suite.api, `${pathOf(payment.url)}?s=${checkout.id}`)).status).toBe(200);
  });

  it('answers an unknown or malformed code, or any other address under the page path, with a 404 page, same headers (never the API`s JSON)', async () => {
    const code = pathOf((await suite.shop.client.createPayment()).url);
    for (const path of ['/checkout/nosuchcode', '/checkout/bad-code!', '/checkout/nosuchcode/receipt', '/checkout', '/checkout/', `${code}/pay`, `${code}/receipt/extra`]) {
      const page = await get(suite.api, path);
      expect({ path, status: page.status }).toEqual({ path, status: 404 });
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expectSecurityHeaders(page);
      expect(page.body).toContain('Payment not found');
    }
  });

  it('an empty or blank description is none: the page heads with "Payment", its title ends with the business (audit L7, 2026-11-30)', async () => {
    for (const description of ['', '   ']) {
      const payment = await suite.shop.client.createPayment({ description });
      const page = await get(suite.api, pathOf(payment.url));
      expect(page.body).toContain('<h1 id="description">Payment</h1>');
      expect(page.body).toContain('<title>Pay Sandbox &lt;b&gt;Shop&lt;/b&gt;</title>');
    }
  });

  it('a garbled page address (bad percent-encoding, a NUL) answers the page’s HTML 404; the API keeps its JSON 400 (audit L6, 2026-11-30)', async () => {
    const code = pathOf((await suite.shop.client.createPayment()).url);
    for (const path of ['/checkout/abc%', '/checkout/abc%zz', '/checkout/%FF', '/checkout/%E0%A4%A', `${code}%C0%AF`, '/checkout/abc%00', `${code}/receipt?s=chk_a%00`, `${code}%00/receipt`]) {
      const page = await get(suite.api, path);
      expect({ path, status: page.status, type: page.headers['content-type'] }).toEqual({ path, status: 404, type: 'text/html; charset=utf-8' });
      expectSecurityHeaders(page);
      expect(page.body).toContain('Payment not found');
    }
    const api = await get(suite.api, '/api/v1/payments/abc%');
    expect({ status: api.status, type: api.headers['content-type'] }).toEqual({ status: 400, type: expect.stringMatching(/^application\/json/) });
    expect(JSON.parse(api.body).error.code).toBe('invalid_request');
    const nul = await get(suite.api, '/api/v1/public/receipts/pmt_a%00');
    expect(nul.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(nul.body).error.code).toEqual(expect.any(String));
  });

  it('renders the receipt for people from the public receipt, escaped', async () => {
    const shop = suite.shop.client;
    const payment = await shop.createPayment({ description: HOSTILE, reference: 'order-<7>' });
    const checkout = await shop.openCheckout(payment);
    await shop.markSent(checkout.id, 'exact');
    await shop.advance(60);
    const page = await get(suite.api, `${pathOf(payment.url)}/receipt`);
    expect(page.status).toBe(200);
    expectSecurityHeaders(page);
    expect(page.body).not.toContain('<script>alert');
    expect(page.body).toContain('order-&lt;7&gt;');
    expect(page.body).toMatch(/<dt>Status<\/dt><dd>Paid<\/dd>/);
    expect(page.body).toMatch(/<dt>Total<\/dt><dd>\$100\.00<\/dd>/);
    expect(page.body).toMatch(/<dt>Paid in<\/dt><dd>100 USDC on Ethereum<\/dd>/);
    expect(page.body).toContain(`href="/api/v1/public/receipts/${payment.id}"`);
    expect(page.body).toContain('href="https://shop.example/"'); // back_url: the business's website
  });

  it('a receipt where nothing arrived says what was quoted, not "Paid in" (a claim under review; audit, 2026-11-28)', async () => {
    const shop = suite.shop.client;
    const payment = await shop.createPayment();
    const checkout = await shop.openCheckout(payment);
    expect((await shop.as(null).post(`/checkouts/${checkout.id}/cancel`)).status).toBe(200);
    expect((await shop.as(null).post(`/checkouts/${checkout.id}/claim`, { tx_hash: '0x' + '7c'.repeat(32) })).status).toBe(200);
    const page = await get(suite.api, `${pathOf(payment.url)}/receipt`);
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/<dt>Quoted<\/dt><dd>100 USDC on Ethereum<\/dd>/);
    expect(page.body).not.toMatch(/Paid in|<dt>Received<\/dt>/);
  });

  describe('a payment link’s page (decision 0030)', () => {
    const newLink = async (fields: Record<string, unknown> = {}) => {
      const answer = await suite.shop.client.post('/links', { name: 'Blue mug', description: HOSTILE, amount: 2_500, currency: 'USD', ...fields });
      if (answer.status !== 201) throw new Error(`link: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body.data as { id: string; code: string; url: string };
    };
    const openOnLink = async (link: { code: string }, fields: Record<string, unknown> = {}) => {
      const opened = await suite.shop.client.as(null).postOnce('/checkouts', { link_code: link.code, asset: 'USDC', network: 'ethereum', ...fields });
      if (opened.status !== 201) throw new Error(`checkout: ${opened.status} ${JSON.stringify(opened.body)}`);
      return opened.body.data;
    };

    it('serves the page at the link’s url: its price and words, escaped, the link’s narrowed choices, no payment until a checkout', async () => {
      const link = await newLink({ assets: [{ asset: 'USDC', network: 'ethereum' }, { asset: 'USDT', network: 'ethereum' }], ask_email: true });
      const page = await get(suite.api, pathOf(link.url));
      expect(page.status).toBe(200);
      expectSecurityHeaders(page);
      expect(page.body).not.toContain('<script>alert');
      expect(page.body).toContain('data-view="choose"');
      const data = pageData(page.body);
      expect(data).toMatchObject({ code: link.code, source: 'link', checkout: null, ask_email: true, payment: { id: null, status: 'pending', amount: 2_500, currency: 'USD', amount_text: '$25.00' } });
      expect(data.options.map((o: { asset: string; network: string }) => `${o.asset}/${o.network}`)).toEqual(['USDC/ethereum', 'USDT/ethereum']);
      expect((await suite.shop.client.get(`/payments?link_id=${link.id}`)).body.data).toEqual([]); // looking makes no payment
    });

    it('resumes ?s= for a checkout the link made (its payment, its QR code, its receipt); another payment’s checkout is not shown', async () => {
      const link = await newLink();
      const checkout = await openOnLink(link, { email: 'ann@example.com' });
      const foreign = await suite.shop.client.openCheckout(await suite.shop.client.createPayment());
      const resumed = await get(suite.api, `${pathOf(link.url)}?s=${checkout.id}`);
      const data = pageData(resumed.body);
      expect(data.checkout).toMatchObject({ id: checkout.id, payment_id: checkout.payment_id, status: 'open' });
      expect(data.payment).toMatchObject({ id: checkout.payment_id, status: 'pending' });
      expect(resumed.body).toContain(`/qr.svg?s=${checkout.id}"`);
      expect(resumed.body).toContain(`${pathOf(link.url)}/receipt?s=${checkout.id}`);
      expect(pageData((await get(suite.api, `${pathOf(link.url)}?s=${foreign.id}`)).body).checkout).toBeNull();
      expect((await get(suite.api, `${pathOf(link.url)}/qr.svg?s=${checkout.id}`)).status).toBe(200);
      expect((await get(suite.api, `${pathOf(link.url)}/qr.svg?s=${foreign.id}`)).status).toBe(404);
      // the payment's own code has no page: a link payment's url is null
      const payment = await suite.shop.client.payment(checkout.payment_id);
      expect(payment.url).toBeNull();
      await suite.shop.client.markSent(checkout.id, 'exact');
      await suite.shop.client.advance(60);
      const receipt = await get(suite.api, `${pathOf(link.url)}/receipt?s=${checkout.id}`);
      expect(receipt.status).toBe(200);
      expect(receipt.body).toContain(`href="/api/v1/public/receipts/${checkout.payment_id}"`);
      expect(receipt.body).toContain(`href="${pathOf(link.url)}?s=${checkout.id}"`);
      expect((await get(suite.api, `${pathOf(link.url)}/receipt`)).status).toBe(404); // which payment's? none named
    });

    it('an archived link: 410 without ?s=, its checkouts still followed (no new ones offered); disabled or deleted: 404', async () => {
      const link = await newLink();
      const checkout = await openOnLink(link);
      await suite.shop.client.post(`/links/${link.id}/archive`);
      const gone = await get(suite.api, pathOf(link.url));
      expect(gone.status).toBe(410);
      expectSecurityHeaders(gone);
      expect(gone.body).toContain('no longer taking payments');
      const followed = await get(suite.api, `${pathOf(link.url)}?s=${checkout.id}`);
      expect(followed.status).toBe(200);
      expect(pageData(followed.body)).toMatchObject({ checkout: { id: checkout.id }, options: [] });
      const deleted = await newLink();
      await suite.shop.client.call('DELETE', `/links/${deleted.id}`);
      expect((await get(suite.api, pathOf(deleted.url))).status).toBe(404);
    });
  });

  it('serves the script and the stylesheet with their types, cached by content hash', async () => {
    const payment = await suite.shop.client.createPayment();
    const page = await get(suite.api, pathOf(payment.url));
    const script = /src="([^"]+checkout\.js[^"]*)"/.exec(page.body)![1];
    const style = /href="([^"]+checkout\.css[^"]*)"/.exec(page.body)![1];
    const js = await get(suite.api, script);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toContain('immutable');
    // the file libs/checkout-page/assets/checkout.js as it is, its URL versioned by its content hash
    const assets = readPageAssets();
    expect(js.body).toBe(assets.script);
    expect(script).toBe(`/checkout/assets/checkout.js?v=${createHash('sha256').update(assets.script).digest('hex').slice(0, 16)}`);
    expect(js.headers.etag).toBe(`"${script.split('=')[1]}"`);
    const css = await get(suite.api, style);
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toBe(assets.style);
    expectSecurityHeaders(css);
  });

  describe('with the business’s checkout settings (decision 0028)', () => {
    it('shows the display name and support e-mail, only the accepted coins and networks, crypto alone, and asks for the e-mail on crypto', async () => {
      const { client } = await businessWithKey(suite.api, true, 'Own Name Ltd');
      const changed = await client.patch('/checkout-settings', {
        display_name: 'Acme <Outlet>',
        support_email: 'care@acme.example',
        ask_email: true,
        rails: ['crypto'],
        assets: [{ asset: 'BTC', network: 'bitcoin' }, { asset: 'USDC', network: 'polygon' }],
      });
      expect(changed.status).toBe(200);
      const payment = await client.createPayment();
      const page = await get(suite.api, pathOf(payment.url));
      const data = pageData(page.body);
      expect(data.business).toEqual({ name: 'Acme <Outlet>', support_email: 'care@acme.example', simulated: true });
      expect(page.body).toContain('<p class="merchant">Acme &lt;Outlet&gt;</p>');
      expect(page.body).toContain('<title>Pay Acme &lt;Outlet&gt; — Order 1</title>');
      expect(page.body).not.toContain('Own Name Ltd');
      expect(page.body).toContain('<a href="mailto:care@acme.example">care@acme.example</a>');
      expect(page.body).not.toContain('help@shop.example');
      // the settings' pairs only, in the registry's order
      expect(data.options.map((o: { asset: string; network: string }) => `${o.asset}@${o.network}`)).toEqual(['USDC@polygon', 'BTC@bitcoin']);
      expect([...page.body.matchAll(/<option value="([A-Z]+)">/g)].map((m) => m[1])).toEqual(['USDC', 'BTC']);
      // crypto alone: no choice of rail, no card fields
      expect(data.rails).toEqual(['crypto']);
      expect(page.body).not.toContain('name="rail"');
      expect(page.body).not.toContain('id="card-fields"');
      expect(page.body).toContain('id="only-rail"');
      // the e-mail is asked on crypto too: its field is shown from the first paint
      expect(data.ask_email).toBe(true);
      expect(page.body).toMatch(/<div class="field" id="email-field">/);
      // what the page asks for is what POST /checkouts requires
      const code = payment.url.split('/').pop();
      const anonymous = client.as(null);
      expect((await anonymous.postOnce('/checkouts', { payment_code: code, asset: 'USDC', network: 'polygon' })).body.error).toMatchObject({ code: 'email_required', field: 'email' });
      expect((await anonymous.postOnce('/checkouts', { payment_code: code, asset: 'USDC', network: 'ethereum', email: 'ann@example.com' })).body.error.code).toBe('asset_unavailable');
      expect((await anonymous.postOnce('/checkouts', { payment_code: code, asset: 'USDC', network: 'polygon', email: 'ann@example.com' })).status).toBe(201);
    });

    it('a business taking cards alone: the card fields from the first paint, no coin', async () => {
      const { client } = await businessWithKey(suite.api, true, 'Cards Only', { contact: false });
      expect((await client.patch('/checkout-settings', { rails: ['card'] })).status).toBe(200);
      const payment = await client.createPayment();
      const page = await get(suite.api, pathOf(payment.url));
      const data = pageData(page.body);
      expect(data.rails).toEqual(['card']);
      expect(data.options).toEqual([]);
      expect(data.business).toEqual({ name: 'Cards Only', support_email: null, simulated: true });
      expect(page.body).not.toContain('id="support"'); // no support address to show
      expect(page.body).not.toContain('id="crypto-fields"');
      expect(page.body).not.toContain('name="rail"');
      expect(page.body).toMatch(/<div id="card-fields">/);
      expect(page.body).toMatch(/<div class="field" id="email-field">/);
    });

    it('a live business that takes cards alone: no way to pay on the page (no card processor), said in words', async () => {
      const { client } = await businessWithKey(suite.api, false, 'Live Cards');
      expect((await client.patch('/checkout-settings', { rails: ['card'] })).status).toBe(200);
      const payment = await client.createPayment();
      const page = await get(suite.api, pathOf(payment.url));
      expect(pageData(page.body).rails).toEqual([]);
      expect(page.body).not.toContain('id="choose-form"');
      expect(page.body).toContain('<p class="note" id="no-rails">Live Cards cannot take a payment on this page right now. Contact them for another way to pay.</p>');
    });
  });
});
