import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { QueryBus } from '@nestjs/cqrs';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig } from '@lib/core';
import { readPageAssets } from './page-assets';
import { CheckoutPageGone, CheckoutPageNotFound } from './page-model';
import { GetCheckoutPageQuery } from './queries/get-checkout-page/get-checkout-page.query';
import { GetCheckoutQrQuery } from './queries/get-checkout-qr/get-checkout-qr.query';
import { GetPageReceiptQuery } from './queries/get-page-receipt/get-page-receipt.query';
import { PagePaths, checkoutPageHtml } from './render/checkout-page.html';
import { IMAGE_CSP, documentStart, pageCsp, securityHeaders, text } from './render/html';
import { receiptHtml } from './render/receipt.html';

/** Where the API answers (spec: `{base_url}/api/v1`, the only address it answers on); the page's script calls it on this origin. */
export const API_PATH = '/api/v1';

/** The page's path: the pathname of CHECKOUT_BASE_URL ("/checkout" by default; "" when it has none). */
export function checkoutPagePath(config: Pick<AppConfig, 'checkoutBaseUrl'>): string {
  return new URL(config.checkoutBaseUrl).pathname.replace(/\/+$/, '');
}

const ASSET_CACHE = 'public, max-age=86400, immutable'; // the URLs carry the content's hash

interface PageSetup {
  base: string;
  paths: PagePaths;
  script: { body: string; version: string };
  style: { body: string; version: string };
}
const setups = new Map<string, PageSetup>();

/** The page's path, assets (read once) and their versioned URLs, for a CHECKOUT_BASE_URL. */
function pageSetup(config: Pick<AppConfig, 'checkoutBaseUrl'>): PageSetup {
  const base = checkoutPagePath(config);
  let setup = setups.get(base);
  if (!setup) {
    const assets = readPageAssets();
    const script = versioned(assets.script);
    const style = versioned(assets.style);
    setup = { base, script, style, paths: { base, api: API_PATH, script: `${base}/assets/checkout.js?v=${script.version}`, style: `${base}/assets/checkout.css?v=${style.version}` } };
    setups.set(base, setup);
  }
  return setup;
}

/**
 * Whether a request is for a page people open (under the page's path; when the page sits at the
 * host's root, any path outside the API asked for as HTML): a URL Fastify cannot even route (bad
 * percent-encoding) or one naming a NUL there gets the page's HTML 404, never the API's JSON (audit L6, 2026-11-30).
 */
export function isPageRequest(config: Pick<AppConfig, 'checkoutBaseUrl'>, url: string, accept: string | string[] | undefined): boolean {
  const base = checkoutPagePath(config);
  const path = url.split('?')[0];
  if (base !== '') return path === base || path.startsWith(`${base}/`);
  const html = (Array.isArray(accept) ? accept.join(',') : accept ?? '').toLowerCase().includes('text/html');
  return html && path !== API_PATH && !path.startsWith(`${API_PATH}/`);
}

/** The page's "Payment not found" 404, with the page's headers (for requests no page route could take). */
export function sendPageNotFound(config: Pick<AppConfig, 'checkoutBaseUrl'>, reply: FastifyReply): FastifyReply {
  const { paths } = pageSetup(config);
  return reply
    .code(404)
    .type('text/html; charset=utf-8')
    .headers({ ...securityHeaders(pageCsp()), 'cache-control': 'no-store' })
    .send(notFoundPage(paths));
}

/**
 * The hosted checkout page's routes, outside /api/v1 (like the API reference page at /docs):
 * plain Fastify routes registered while the app starts, so they sit at the path CHECKOUT_BASE_URL
 * names and answer HTML, SVG, CSS and JS rather than the API's JSON. Thin: each parses the path
 * and query, asks its query on the QueryBus, and renders. The edge check, request ids and request
 * logs apply as to every route; the Nest guards do not (everything here is public, read only).
 *
 * `:code` is a payment's code or a payment link's (PageCodes, decision 0030).
 *
 *   GET {base}/:code                  the page (`?s=<checkout_id>` resumes that checkout)
 *   GET {base}/:code/qr.svg?s=<id>    the QR code of that checkout's payment URI (`&part=remaining&due=<amount>`: of what is still due;
 *                                     `due` only makes each rest's URL its own, so a cached image of an earlier rest is never shown)
 *   GET {base}/:code/receipt          the receipt, for people (a link's: `?s=<checkout_id>` names whose)
 *   GET {base}/assets/checkout.js|css the page's script and stylesheet
 */
@Injectable()
export class CheckoutPageRoutes implements OnModuleInit {
  private readonly logger = new Logger('checkout-page');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly queries: QueryBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const { base, paths, script, style } = pageSetup(this.config);
    const csp = pageCsp();

    fastify.get(`${base}/assets/checkout.js`, (_request, reply) => {
      void reply.type('application/javascript; charset=utf-8').headers({ ...securityHeaders(csp), 'cache-control': ASSET_CACHE, etag: `"${script.version}"` }).send(script.body);
    });
    fastify.get(`${base}/assets/checkout.css`, (_request, reply) => {
      void reply.type('text/css; charset=utf-8').headers({ ...securityHeaders(csp), 'cache-control': ASSET_CACHE, etag: `"${style.version}"` }).send(style.body);
    });

    fastify.get<{ Params: { code: string }; Querystring: Record<string, unknown> }>(`${base}/:code`, async (request, reply) => {
      await this.answer(reply, paths, csp, async () => {
        const model = await this.queries.execute(new GetCheckoutPageQuery(request.params.code, single(request.query.s)));
        return checkoutPageHtml(model, paths);
      });
    });

    fastify.get<{ Params: { code: string }; Querystring: Record<string, unknown> }>(`${base}/:code/receipt`, async (request, reply) => {
      const checkoutId = single(request.query.s);
      await this.answer(reply, paths, csp, async () => receiptHtml(await this.queries.execute(new GetPageReceiptQuery(request.params.code, checkoutId)), request.params.code, paths, checkoutId));
    });

    fastify.get<{ Params: { code: string }; Querystring: Record<string, unknown> }>(`${base}/:code/qr.svg`, async (request, reply) => {
      const checkoutId = single(request.query.s);
      const part = single(request.query.part) === 'remaining' ? 'remaining' : 'quote';
      try {
        if (checkoutId === null) throw new CheckoutPageNotFound('QR code');
        const svg = await this.queries.execute(new GetCheckoutQrQuery(request.params.code, checkoutId, part));
        void reply.type('image/svg+xml; charset=utf-8').headers({ ...securityHeaders(IMAGE_CSP), 'cache-control': 'private, max-age=300' }).send(svg);
      } catch (error) {
        if (!(error instanceof CheckoutPageNotFound)) this.logger.error(`QR code: ${error instanceof Error ? error.stack : String(error)}`);
        void reply
          .code(error instanceof CheckoutPageNotFound ? 404 : 500)
          .type('text/plain; charset=utf-8')
          .headers({ ...securityHeaders(IMAGE_CSP), 'cache-control': 'no-store' })
          .send(error instanceof CheckoutPageNotFound ? 'No QR code here.' : 'Something went wrong.');
      }
    });

    // a link as mail clients and chat apps pass it on: a trailing slash leads to the page itself, query kept
    for (const tail of ['', '/receipt']) {
      fastify.get<{ Params: { code: string } }>(`${base}/:code${tail}/`, (request, reply) => {
        const query = request.url.indexOf('?');
        void reply.redirect(`${base}/${encodeURIComponent(request.params.code)}${tail}${query >= 0 ? request.url.slice(query) : ''}`, 301);
      });
    }
    // any other address under the page's path is a page for people too: the "Payment not found" page, never the API's JSON
    // (not when the page sits at the host's root: every unknown API path would be under it)
    if (base !== '') {
      const notFound = async (_request: FastifyRequest, reply: FastifyReply) =>
        this.answer(reply, paths, csp, () => Promise.reject(new CheckoutPageNotFound('page')));
      fastify.get(base, notFound);
      fastify.get(`${base}/*`, notFound);
    }
  }

  /** An HTML answer: the page, or a page saying what went wrong (404 for an unknown code, 500 otherwise, logged). */
  private async answer(reply: FastifyReply, paths: PagePaths, csp: string, render: () => Promise<string>): Promise<void> {
    let status = 200;
    let html: string;
    try {
      html = await render();
    } catch (error) {
      if (error instanceof CheckoutPageNotFound) {
        status = 404;
        html = notFoundPage(paths);
      } else if (error instanceof CheckoutPageGone) {
        status = 410;
        html = messagePage(paths, 'No longer available', `${error.message} Ask the business for a new link.`);
      } else {
        this.logger.error(`checkout page: ${error instanceof Error ? error.stack : String(error)}`);
        status = 500;
        html = messagePage(paths, 'Something went wrong', 'The page could not be shown. Try again in a moment.');
      }
    }
    void reply
      .code(status)
      .type('text/html; charset=utf-8')
      .headers({ ...securityHeaders(csp), 'cache-control': 'no-store' })
      .send(html);
  }
}

/** A query parameter given once as text, or null (absent, repeated or empty). */
function single(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function versioned(body: string): { body: string; version: string } {
  return { body, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
}

function notFoundPage(paths: PagePaths): string {
  return messagePage(paths, 'Payment not found', 'There is no payment at this address. Check the link you were given, or ask the business for a new one.');
}

function messagePage(paths: PagePaths, title: string, message: string): string {
  return `${documentStart(title, { style: paths.style })}
<main class="sheet">
<h1>${text(title)}</h1>
<p>${text(message)}</p>
</main>
</body>
</html>
`;
}
