import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { BrowserContext, ConsoleMessage, Page, Response, chromium } from 'playwright-core';
import { Client, TestApi, businessWithKey, startApp } from '../support/fixtures';
import { freePort } from '../support/free-port';

/**
 * What the checkout page's browser walks share (browser.e2e.ts, card-browser.e2e.ts): Debian's
 * Chromium (/usr/bin/chromium or CHROMIUM_PATH; nothing downloads a browser) driven by
 * playwright-core with a fresh profile, a watched page (console errors, uncaught exceptions and
 * dialogs collected), screenshots into test-artifacts/checkout-page/, and axe-core evaluated through
 * the DevTools protocol (the page's CSP does not govern it, so pages are checked under their real CSP).
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts', 'checkout-page');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
/** A step the page shows after a poll (every 2 s, at most 5 s while it waits for the customer). */
export const SHOWN = { timeout: 15_000 };

export interface Watched {
  page: Page;
  /** Console errors and uncaught exceptions seen so far (a CSP violation logs one). */
  errors: string[];
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium at 375 × 812 with a fresh profile; a missing Chromium fails with how to install it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}. Install Debian's chromium (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH.`);
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'checkout-chromium-')); // a fresh profile every run
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 375, height: 812 }, locale: 'en-US' });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until the page's address is exactly `url`. The page rewrites its address with
 * history.replaceState once its script has run, which can be after the server-rendered view shows.
 */
export async function atUrl(page: Page, url: string): Promise<void> {
  await page.waitForURL((current) => current.href === url, SHOWN);
  expect(page.url()).toBe(url);
}

/** A new tab whose console errors, uncaught exceptions and dialogs are collected. */
export async function watchedPage(context: BrowserContext): Promise<Watched> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('dialog', (dialog) => {
    errors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, errors };
}

/** The checkout page's security headers on an answer. */
export function expectPageHeaders(response: Response | null): void {
  expect(response?.status()).toBe(200);
  const csp = response!.headers()['content-security-policy'];
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(response!.headers()['x-content-type-options']).toBe('nosniff');
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function accessible(page: Page, state: string): Promise<void> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then(r => r.violations.map(v => ({ id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ')) })))`)) as { id: string; impact: string; nodes: string[] }[];
  expect({ state, violations: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') }).toEqual({ state, violations: [] });
}

export function noErrors(watched: Watched, allowed: RegExp[] = []): void {
  expect(watched.errors.filter((e) => !allowed.some((a) => a.test(e)))).toEqual([]);
}

/**
 * Called in a describe block: the walk's Chromium, launched (then `prepare`d) before its tests and
 * closed after them; read it with the function returned, inside tests. Call it before the app's
 * appPerSuite: afterAll hooks run in declaration order, so the browser (and its keep-alive
 * connections to the app) is gone before the app closes.
 */
export function chromiumPerSuite(prepare?: (browser: Browser) => Promise<void>): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
    if (prepare) await prepare(browser);
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('chromiumPerSuite: the browser is not launched (read it inside tests)');
    return browser;
  };
}

/**
 * The app on the embedded store listening on a port chosen beforehand, CHECKOUT_BASE_URL naming
 * that real origin: a processor sends the customer back to `{CHECKOUT_BASE_URL}/<code>?s=…`, and
 * PORT=0 would give http://localhost:0 return URLs.
 */
export async function appOnItsOwnPort(): Promise<TestApi> {
  const port = await freePort();
  return startApp('embedded', { TRUSTED_PROXIES: 'loopback', PORT: String(port), CHECKOUT_BASE_URL: `http://127.0.0.1:${port}/checkout` });
}

/** The text of the QR code shown at `selector`, read from a screenshot of it (null when none reads). */
export async function qrOf(page: Page, selector: string): Promise<string | null> {
  const image = PNG.sync.read(await page.locator(selector).screenshot());
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null;
}

/** On the choice view: Card, its fields shown, the receipt e-mail and the country filled (Continue not yet pressed). */
export async function chooseCard(page: Page, fields: { email?: string; country?: string }): Promise<void> {
  await page.getByLabel('Card', { exact: true }).check();
  await page.locator('#card-fields').waitFor({ state: 'visible', ...SHOWN });
  await page.getByLabel('E-mail for the receipt').fill(fields.email ?? '');
  await page.getByLabel(/^Country/).fill(fields.country ?? '');
}

/**
 * The steps both walks take on the running app (`api`) in the launched browser (`browser`): a
 * fresh simulated business, a watched page at a URL (its headers checked), the page URL of a
 * payment on the app's real origin, and reading the page's checkout, status and views.
 */
export function pageSteps(browser: () => Browser, api: () => TestApi) {
  const origin = () => `http://127.0.0.1:${api().port}`;
  const visible = (page: Page, view: string) => page.locator(`#view-${view}`).waitFor({ state: 'visible', ...SHOWN });
  const openPage = async (url: string): Promise<Watched> => {
    const watched = await watchedPage(browser().context);
    expectPageHeaders(await watched.page.goto(url));
    return watched;
  };
  const pageUrl = (payment: { url: string }, search = '') => `${origin()}${new URL(payment.url).pathname}${search}`;
  /** The checkout the page's address names (?s=), read in the page: page.url() can lag a history.replaceState. */
  const checkoutIdOf = async (page: Page) => new URL(await page.evaluate<string>('window.location.href')).searchParams.get('s');
  return {
    origin,
    /** A fresh simulated business (its own test clock), as a client signed with its secret key. */
    newShop: async (name: string): Promise<Client> => (await businessWithKey(api(), true, name)).client,
    openPage,
    pageUrl,
    /** A new payment of `shop` (`fields` over createPayment's defaults), its page open and watched. */
    openPayment: async (shop: Client, fields: Record<string, unknown> = {}) => {
      const payment = await shop.createPayment(fields);
      const watched = await openPage(pageUrl(payment));
      return { payment, watched, page: watched.page };
    },
    checkoutIdOf,
    /** On the choice view: the coin and the network picked (each when given, else the page's default), Continue pressed, the pay view shown; its checkout's id. */
    choose: async (page: Page, choice: { asset?: string; network?: string } = {}): Promise<string> => {
      if (choice.asset) await page.selectOption('#asset', choice.asset);
      if (choice.network) await page.selectOption('#network', choice.network);
      await page.click('#choose-submit');
      await visible(page, 'pay');
      return (await checkoutIdOf(page))!;
    },
    status: (page: Page) => page.locator('#status').textContent(),
    visible,
    /** The test-mode "send exactly" on the pay view, then every confirmation (one simulated block every 3 s) on `shop`'s clock: confirming, then succeeded. */
    sendExactlyToSucceeded: async (page: Page, shop: Client) => {
      await page.click('#view-pay [data-simulate="exact"]');
      await visible(page, 'confirming');
      await shop.advance(60);
      await visible(page, 'succeeded');
    },
    getCheckout: async (shop: Client, id: string) => {
      const answer = await shop.get(`/checkouts/${id}`);
      expect(answer.status).toBe(200);
      return answer.body.data;
    },
  };
}
