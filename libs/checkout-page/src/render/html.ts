/**
 * HTML building blocks of the page: escaping (every value from a business, a payment or a
 * customer goes through `text` or `attr`), the JSON data block, the security headers.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text content, escaped. */
export function text(value: string | number | null | undefined): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** An attribute value (always written in double quotes), escaped. */
export const attr = text;

/**
 * JSON inside <script type="application/json">: never executed (script-src 'self' does not
 * apply to data blocks), read by the page's script with JSON.parse. `<`, `>`, `&` and the line
 * separators are written as \u escapes, so no value can close the element (`</script>`) or open a comment.
 */
export function jsonData(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** An http(s) URL, or null (a business's success/cancel URL is only ever linked when it is one). */
export function httpUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The page's Content-Security-Policy: nothing but this origin's script, stylesheet, images
 * (and data: ones, the favicon), calls to this origin's API; forms post only here (the card
 * processor's page is reached by navigation, which form-action does not govern; its own origin is
 * added when it is another one); never framed; no <base>.
 */
export function pageCsp(formOrigins: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    `form-action 'self'${formOrigins.map((o) => ` ${o}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** An SVG answered on its own: no script, no style from anywhere, never framed. */
export const IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox";

/** Headers every page, asset and image of the checkout carries. */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  };
}

/**
 * The test-mode marker of a simulated business's pages: the checkout page and its receipt (audit
 * L3, 2026-11-30: a test receipt must not pass for proof of a real payment).
 */
export function testModeBanner(): string {
  return `<aside class="banner" id="test-banner" aria-label="Test mode"><p><strong>Test mode.</strong> This is a simulated business: no real money moves and nothing is sent on any chain.</p></aside>`;
}

/**
 * The start of every page the service renders for customers, up to and including `<body>`: the
 * document's language, viewport, no indexing, an empty icon (no request), the stylesheet and,
 * when given, the one script (deferred; the CSP allows nothing inline).
 */
export function documentStart(title: string, assets: { style: string; script?: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${text(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${attr(assets.style)}">
${assets.script !== undefined ? `<script src="${attr(assets.script)}" defer></script>
` : ''}</head>
<body>`;
}
