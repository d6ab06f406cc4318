import { createHash } from 'node:crypto';
import { fiatExponent, formatCryptoAmount } from '@lib/money';
import { SIMULATED_PROCESSOR_PATH, SimulatedAttemptRow, SimulatedCardProcessor } from './simulated-processor';
import { TEST_CARDS, behaviourOf, brandOf, digitsOf, luhnValid } from './test-cards';

/**
 * The simulated processors' secure pages (decision 0026), served by this service outside
 * /api/v1 (apps/api registers the routes): a plain HTML form — card number, expiry, CVC, name —
 * with labels, no script, no external resource and a strict Content-Security-Policy; the
 * challenge page of the challenge card; and where each ends: a 303 to the attempt's return_url.
 * Pure of HTTP: each answer is a status and a page, or a redirect.
 */
export type PageAnswer = { status: number; html: string; headers: Record<string, string> } | { status: 303; location: string; headers: Record<string, string> };

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#111}label{display:block;margin-top:.8rem}input{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}button{margin-top:1rem;font-size:1rem;padding:.5rem 1.2rem}.error{color:#a00}table{border-collapse:collapse;font-size:.85rem;margin-top:1.5rem}td{padding:.2rem .4rem;border-top:1px solid #ddd}code{white-space:nowrap}';
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export interface CardForm {
  number?: unknown;
  expiry?: unknown;
  cvc?: unknown;
  name?: unknown;
  action?: unknown;
}

export class SimulatedProcessorPages {
  private readonly byName: ReadonlyMap<string, SimulatedCardProcessor>;

  constructor(processors: readonly SimulatedCardProcessor[], private readonly now: () => Date = () => new Date()) {
    this.byName = new Map(processors.map((p) => [p.name, p]));
  }

  /** GET: the form, or where the attempt ended. */
  async show(ref: string): Promise<PageAnswer> {
    const found = await this.find(ref);
    if (!found) return notFound();
    const { row } = found;
    if (row.status === 'challenge') return page(row, 200, challengePage(row));
    if (row.status !== 'pending') return page(row, 200, donePage(row));
    return page(row, 200, formPage(row, []));
  }

  /** POST of the form: validate, then the test card decides. */
  async submit(ref: string, form: CardForm): Promise<PageAnswer> {
    const found = await this.find(ref);
    if (!found) return notFound();
    const { row, processor } = found;
    if (row.status !== 'pending') return page(row, 409, donePage(row));
    const errors: string[] = [];
    const digits = digitsOf(typeof form.number === 'string' ? form.number : '');
    if (!luhnValid(digits)) errors.push('The card number is not valid.');
    const expiry = typeof form.expiry === 'string' ? form.expiry.trim() : '';
    const match = /^(\d{2})\s*\/\s*(\d{2}|\d{4})$/.exec(expiry);
    const month = match ? Number(match[1]) : 0;
    const year = match ? (match[2].length === 2 ? 2000 + Number(match[2]) : Number(match[2])) : 0;
    const today = this.now();
    if (!match || month < 1 || month > 12) errors.push('The expiry date must be MM/YY.');
    else if (year < today.getUTCFullYear() || (year === today.getUTCFullYear() && month < today.getUTCMonth() + 1)) errors.push('The card has expired (expiry date in the past).');
    if (typeof form.cvc !== 'string' || !/^\d{3,4}$/.test(form.cvc.trim())) errors.push('The CVC is 3 or 4 digits.');
    if (errors.length > 0) return page(row, 400, formPage(row, errors));
    const card = { brand: brandOf(digits), last4: digits.slice(-4) };
    const behaviour = behaviourOf(digits);
    switch (behaviour.kind) {
      case 'succeed':
        await processor.record(ref, ['pending'], { status: 'succeeded', ...card });
        return redirect(row);
      case 'decline':
        await processor.record(ref, ['pending'], { status: 'declined', declineCode: behaviour.code, retryable: behaviour.retryable, ...card });
        return redirect(row);
      case 'never_answer':
        await processor.record(ref, ['pending'], { status: 'silent', ...card });
        return redirect(row);
      case 'challenge': {
        await processor.record(ref, ['pending'], { status: 'challenge', ...card });
        const after = (await processor.row(ref)) ?? row;
        return page(after, 200, challengePage(after));
      }
    }
  }

  /** POST of the challenge page: Complete succeeds, Fail declines with authentication_failed. */
  async challenge(ref: string, form: CardForm): Promise<PageAnswer> {
    const found = await this.find(ref);
    if (!found) return notFound();
    const { row, processor } = found;
    if (row.status !== 'challenge') return page(row, 409, donePage(row));
    const card = { brand: row.brand ?? 'unknown', last4: row.last4 ?? '' };
    if (form.action === 'complete') await processor.record(ref, ['challenge'], { status: 'succeeded', ...card });
    else if (form.action === 'fail') await processor.record(ref, ['challenge'], { status: 'declined', declineCode: 'authentication_failed', retryable: true, ...card });
    else return page(row, 400, challengePage(row, 'Choose Complete or Fail.'));
    return redirect(row);
  }

  private async find(ref: string): Promise<{ row: SimulatedAttemptRow; processor: SimulatedCardProcessor } | null> {
    if (!/^sim_[A-Za-z0-9_-]{10,64}$/.test(ref)) return null;
    for (const processor of this.byName.values()) {
      const row = await processor.row(ref);
      if (row) return { row, processor };
    }
    return null;
  }
}

function csp(row: SimulatedAttemptRow | null): string {
  let back = '';
  if (row) {
    try {
      back = ` ${new URL(row.return_url).origin}`;
    } catch {
      back = '';
    }
  }
  // no script, no external resource; the form posts here and the browser is sent back to the checkout page
  return `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'${back}; base-uri 'none'; frame-ancestors 'none'`;
}

function headers(row: SimulatedAttemptRow | null): Record<string, string> {
  return { 'content-security-policy': csp(row), 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' };
}

function page(row: SimulatedAttemptRow, status: number, html: string): PageAnswer {
  return { status, html, headers: { ...headers(row), 'content-type': 'text/html; charset=utf-8' } };
}

function redirect(row: SimulatedAttemptRow): PageAnswer {
  return { status: 303, location: row.return_url, headers: headers(row) };
}

function notFound(): PageAnswer {
  return { status: 404, html: layout('Not found', '<h1>No such card attempt</h1><p>This secure page does not exist.</p>'), headers: { ...headers(null), 'content-type': 'text/html; charset=utf-8' } };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

function amountOf(row: SimulatedAttemptRow): string {
  let exponent = 2;
  try {
    exponent = fiatExponent(row.currency);
  } catch {
    exponent = 2;
  }
  const units = BigInt(row.amount);
  const major = formatCryptoAmount(units, exponent);
  const [whole, fraction = ''] = major.split('.');
  return `${whole}${exponent > 0 ? `.${fraction.padEnd(exponent, '0')}` : ''} ${row.currency}`;
}

function header(row: SimulatedAttemptRow): string {
  return `<p>Simulated card processor <strong>${escapeHtml(row.processor)}</strong> — test mode, no real card is charged.</p><h1>Pay ${escapeHtml(amountOf(row))}</h1>`;
}

function formPage(row: SimulatedAttemptRow, errors: string[]): string {
  const action = `${SIMULATED_PROCESSOR_PATH}/${encodeURIComponent(row.ref)}`;
  const errorList = errors.length > 0 ? `<div class="error" role="alert"><ul>${errors.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul></div>` : '';
  const cards = TEST_CARDS.map((c) => `<tr><td><code>${c.number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code></td><td>${escapeHtml(c.what)}</td></tr>`).join('');
  return layout(
    'Pay by card',
    `${header(row)}${errorList}
<form method="post" action="${escapeHtml(action)}">
<label for="number">Card number</label><input id="number" name="number" inputmode="numeric" autocomplete="cc-number" required>
<label for="expiry">Expiry (MM/YY)</label><input id="expiry" name="expiry" autocomplete="cc-exp" placeholder="MM/YY" required>
<label for="cvc">CVC</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" required>
<label for="name">Name on card</label><input id="name" name="name" autocomplete="cc-name">
<button type="submit">Pay</button>
</form>
<table aria-label="Test cards"><caption>Test cards (any future expiry, any CVC)</caption>${cards}<tr><td>any other valid number</td><td>succeeds</td></tr></table>`,
  );
}

function challengePage(row: SimulatedAttemptRow, error?: string): string {
  const action = `${SIMULATED_PROCESSOR_PATH}/${encodeURIComponent(row.ref)}/challenge`;
  return layout(
    'Confirm the payment',
    `${header(row)}${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}<p>Your bank asks you to confirm this payment (card ending ${escapeHtml(row.last4 ?? '')}).</p>
<form method="post" action="${escapeHtml(action)}"><button type="submit" name="action" value="complete">Complete</button> <button type="submit" name="action" value="fail">Fail</button></form>`,
  );
}

function donePage(row: SimulatedAttemptRow): string {
  return layout('Card payment', `${header(row)}<p>This card payment has already been submitted.</p><p><a href="${escapeHtml(row.return_url)}">Back to the checkout</a></p>`);
}
