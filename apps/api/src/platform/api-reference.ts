import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AppConfig } from '@lib/core';

/**
 * The browsable API reference: Swagger UI at GET /docs, rendering the one OpenAPI document the
 * service serves at GET /api/v1/openapi.json (the page fetches it; nothing is copied into the
 * page). It lives outside /api/v1 because every answer under /api/v1 is JSON.
 *
 * Swagger UI's files come from swagger-ui-dist, the package @nestjs/swagger depends on, and are
 * served from this process (no CDN). We serve them with a few Fastify routes instead of
 * SwaggerModule.setup, which on Fastify needs @fastify/static (not a dependency) and would
 * publish a second copy of the document at /docs-json.
 *
 * Every URL in the page is relative to it, so it also works behind a proxy that mounts the
 * service under a path: from /docs, `docs/x.js` is /docs/x.js and `api/v1/openapi.json` is
 * /api/v1/openapi.json. The routes are plain Fastify routes: the edge check, request ids,
 * logging and the JSON 404/405 answers apply as to any route; the Nest guards do not (the page
 * and its assets are public, like the document).
 */

export const REFERENCE_PATH = '/docs';

/** The files of swagger-ui-dist the page loads, with their content types. */
const VENDOR_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Our own start-up script (no inline script, so the page's CSP can forbid them). */
export const REFERENCE_SCRIPT = 'reference.js';

const ASSET_CACHE = 'public, max-age=3600';

/** The folder of swagger-ui-dist, found the way @nestjs/swagger finds it (it is that package's dependency). */
export function swaggerUiDistPath(): string {
  const swagger = dirname(require.resolve('@nestjs/swagger'));
  return dirname(require.resolve('swagger-ui-dist/package.json', { paths: [swagger] }));
}

/** Registers GET /docs (the page), /docs/ (a redirect to it) and /docs/<asset>. Call before the app listens. */
export function setupApiReference(app: NestFastifyApplication, config: AppConfig, openApiPath: string): void {
  const fastify = app.getHttpAdapter().getInstance();
  const dist = swaggerUiDistPath();
  const base = REFERENCE_PATH.slice(1); // "docs": the page's own folder, relative to the page
  const documentUrl = openApiPath.replace(/^\/+/, ''); // relative to the page, which sits at the root
  const html = page(base);
  const script = startScript(documentUrl);
  const csp = contentSecurityPolicy(config);

  fastify.get(REFERENCE_PATH, (_request, reply) => {
    void reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(html);
  });
  // relative URLs in the page only resolve from /docs: send /docs/ there
  fastify.get(`${REFERENCE_PATH}/`, (_request, reply) => {
    void reply.header('cache-control', 'no-cache').redirect(`../${base}`, 301);
  });
  fastify.get(`${REFERENCE_PATH}/${REFERENCE_SCRIPT}`, (_request, reply) => {
    void reply.type('application/javascript; charset=utf-8').header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').send(script);
  });
  const files = new Map<string, Buffer>(); // read on first request: most processes never serve the page
  for (const [name, type] of Object.entries(VENDOR_ASSETS)) {
    fastify.get(`${REFERENCE_PATH}/${name}`, (_request, reply) => {
      let body = files.get(name);
      if (!body) {
        body = readFileSync(join(dist, name));
        files.set(name, body);
      }
      void reply.type(type).header('cache-control', ASSET_CACHE).header('x-content-type-options', 'nosniff').send(body);
    });
  }
}

function page(base: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Payments API reference</title>
  <link rel="stylesheet" href="${base}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${base}/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${base}/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <noscript>This page needs JavaScript. The OpenAPI document itself is at /api/v1/openapi.json.</noscript>
  <div id="swagger-ui"></div>
  <script src="${base}/swagger-ui-bundle.js"></script>
  <script src="${base}/${REFERENCE_SCRIPT}"></script>
</body>
</html>
`;
}

/** Starts Swagger UI on the service's OpenAPI document; no online validator, no URL box. */
function startScript(documentUrl: string): string {
  const options = {
    url: documentUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    layout: 'BaseLayout',
    validatorUrl: null,
    showExtensions: true,
    filter: true,
  };
  return `// Payments API reference: Swagger UI on the service's own OpenAPI document.
window.addEventListener('load', function () {
  var options = ${JSON.stringify(options, null, 2)};
  options.presets = [SwaggerUIBundle.presets.apis];
  window.ui = SwaggerUIBundle(options);
});
`;
}

/**
 * Only this origin's scripts and styles (Swagger UI sets inline styles and uses data: images);
 * "Try it out" may call this origin and the public API address when one is configured.
 */
function contentSecurityPolicy(config: AppConfig): string {
  const connect = ["'self'", ...(config.apiBaseUrl ? [new URL(config.apiBaseUrl).origin] : [])];
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src ${connect.join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
