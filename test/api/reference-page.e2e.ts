import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { REFERENCE_PATH, swaggerUiDistPath } from '../../apps/api/src/platform/api-reference';
import { TestApi, appPerSuite, startTestApi } from '../support/fixtures';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A raw HTTP request on the server's root (not under /api/v1), with exactly these headers. */
function raw(api: TestApi, method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: api.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function expectJsonError(response: Raw, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(response.body.toString('utf8'));
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toEqual({ code, message: expect.any(String), field: null, request_id: expect.stringMatching(/^req_/) });
  expect(response.headers['service-request-id']).toBe(body.error.request_id);
}

/** Every src= and href= of the page. */
function references(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/g)].map((m) => m[1]);
}

const CONTENT_TYPES: Record<string, RegExp> = {
  '.css': /^text\/css\b/,
  '.js': /^application\/javascript\b/,
  '.png': /^image\/png$/,
};

/** Runs the page's start script the way the browser would, with a stand-in Swagger UI; returns the options it was started with. */
function startOptions(script: string): Record<string, unknown> {
  let started: Record<string, unknown> | null = null;
  const SwaggerUIBundle = Object.assign(
    (options: Record<string, unknown>) => {
      started = options;
      return {};
    },
    { presets: { apis: 'apis-preset' } },
  );
  const window: Record<string, unknown> = { addEventListener: (event: string, listener: () => void) => event === 'load' && listener() };
  runInNewContext(script, { window, SwaggerUIBundle });
  if (!started) throw new Error('the start script did not start Swagger UI');
  return started;
}

describe('API reference page (Swagger UI at /docs, outside /api/v1)', () => {
  const suite = appPerSuite(
    () => startTestApi(),
    async (api) => {
      const origin = `http://127.0.0.1:${api.port}`;
      return { origin, pageUrl: `${origin}${REFERENCE_PATH}` };
    },
  );

  it('answers GET /docs with an HTML page, without credentials, with a request id and a same-origin CSP', async () => {
    const page = await raw(suite.api, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['service-request-id']).toMatch(/^req_/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:/); // no API_BASE_URL here: nothing but this origin
    const html = page.body.toString('utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<div id="swagger-ui">');
    expect(html).not.toMatch(/<script>|<script\s[^>]*>\s*[^<\s]/); // no inline script (the CSP forbids them)
  });

  it('loads every asset from this server (200, its content type), nothing from a CDN', async () => {
    const html = (await raw(suite.api, 'GET', '/docs')).body.toString('utf8');
    const refs = references(html);
    expect(refs.length).toBeGreaterThanOrEqual(4);
    expect(html).not.toMatch(/https?:\/\/|"\/\//);
    const seen = new Set<string>();
    for (const ref of refs) {
      const url = new URL(ref, suite.pageUrl);
      expect({ ref, origin: url.origin }).toEqual({ ref, origin: suite.origin });
      expect(url.pathname.startsWith(`${REFERENCE_PATH}/`)).toBe(true);
      const response = await fetch(url);
      const ext = url.pathname.slice(url.pathname.lastIndexOf('.'));
      expect({ ref, status: response.status }).toEqual({ ref, status: 200 });
      expect(response.headers.get('content-type')).toMatch(CONTENT_TYPES[ext]);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
      seen.add(url.pathname.slice(REFERENCE_PATH.length + 1));
    }
    expect([...seen]).toEqual(expect.arrayContaining(['swagger-ui.css', 'swagger-ui-bundle.js', 'reference.js']));
    // Swagger UI's own files, byte for byte, from the swagger-ui-dist @nestjs/swagger depends on
    for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
      const served = Buffer.from(await (await fetch(`${suite.pageUrl}/${name}`)).arrayBuffer());
      expect(served.equals(readFileSync(join(swaggerUiDistPath(), name)))).toBe(true);
    }
    const script = await (await fetch(`${suite.pageUrl}/reference.js`)).text();
    expect(script).not.toMatch(/https?:\/\//);
  });

  it('renders the document GET /api/v1/openapi.json serves (the page fetches it, no copy)', async () => {
    const script = await (await fetch(`${suite.pageUrl}/reference.js`)).text();
    const options = startOptions(script);
    expect(options.spec).toBeUndefined(); // the document is not embedded in the page
    expect(options.validatorUrl).toBeNull(); // no call to the online validator
    const documentUrl = new URL(String(options.url), suite.pageUrl).href;
    expect(documentUrl).toBe(`${suite.api.base}/openapi.json`);
    const fetched = await fetch(documentUrl);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toMatch(/^application\/json/);
    const document = (await fetched.json()) as { openapi: string; info: { title: string }; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info.title).toBe('Payments API');
    expect(document.paths['/payments']).toBeDefined();
  });

  it('keeps /api/v1 JSON only: /api/v1/docs and its assets are the JSON 404 envelope', async () => {
    for (const path of ['/api/v1/docs', '/api/v1/docs/', '/api/v1/docs/swagger-ui.css', '/api/v1/docs/reference.js']) {
      const response = await raw(suite.api, 'GET', path);
      expect(response.headers['content-type']).not.toMatch(/html/);
      expectJsonError(response, 404, 'not_found');
    }
  });

  it('answers unknown files under /docs with the JSON 404 envelope, other methods with 405, /docs/ with a redirect to /docs', async () => {
    for (const path of ['/docs/nope.js', '/docs/swagger-ui.css.map', '/docs/index.html', '/docs/LICENSE', '/docs/../package.json']) {
      expectJsonError(await raw(suite.api, 'GET', path), 404, 'not_found');
    }
    const post = await raw(suite.api, 'POST', '/docs');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    const slash = await raw(suite.api, 'GET', '/docs/');
    expect(slash.status).toBe(301);
    expect(new URL(String(slash.headers.location), `${suite.origin}/docs/`).href).toBe(suite.pageUrl);
  });

  it('goes through the edge check like every route', async () => {
    expectJsonError(await raw(suite.api, 'GET', '/docs', { host: 'evil.example' }), 403, 'edge_forbidden');
    expectJsonError(await raw(suite.api, 'GET', '/docs/swagger-ui-bundle.js', { host: 'evil.example' }), 403, 'edge_forbidden');
    expect((await raw(suite.api, 'GET', '/docs', { host: `localhost:${suite.api.port}` })).status).toBe(200);
  });
});

describe('API reference page behind a configured public address', () => {
  const suite = appPerSuite(() => startTestApi({ API_BASE_URL: 'https://api.payments.example' }));

  it('is served on the public host, and lets "Try it out" call the public API address', async () => {
    const page = await raw(suite.api, 'GET', '/docs', { host: 'api.payments.example' });
    expect(page.status).toBe(200);
    expect(String(page.headers['content-security-policy'])).toContain("connect-src 'self' https://api.payments.example");
    const document = JSON.parse((await raw(suite.api, 'GET', '/api/v1/openapi.json', { host: 'api.payments.example' })).body.toString('utf8'));
    expect(document.servers).toEqual([{ url: 'https://api.payments.example/api/v1' }]);
  });
});
