import { defaultRegistry } from '@lib/chains';
import type { PageReceipt } from '../queries/get-page-receipt/get-page-receipt.query';
import { formatMoney, formatTime } from './format';
import { attr, documentStart, httpUrl, testModeBanner, text } from './html';
import { parseCryptoAmount } from '@lib/money';
import type { PagePaths } from './checkout-page.html';

const STATUS_WORDS: Record<string, string> = {
  succeeded: 'Paid',
  pending: 'Not paid yet',
  underpaid: 'Partly paid',
  needs_review: 'Under review',
  failed: 'Not paid',
  canceled: 'Canceled',
};

/**
 * The human receipt page, from the public receipt object (spec §2 Receipt: nothing the business
 * pays, no customer details), every value escaped. Links to the same object as JSON. A simulated
 * business's transfer hashes are shown without a link: they are on no chain.
 */
export function receiptHtml({ receipt, simulated }: PageReceipt, code: string, paths: PagePaths, checkoutId: string | null = null): string {
  // back to the page: a link's page resumes the checkout the receipt came from
  const pageUrl = `${paths.base}/${encodeURIComponent(code)}${checkoutId ? `?s=${encodeURIComponent(checkoutId)}` : ''}`;
  const network = (id: string) => (defaultRegistry.networks().find((n) => n.id === id)?.name ?? id);
  const back = httpUrl(receipt.back_url);
  const rows: [string, string][] = [
    ['Status', STATUS_WORDS[receipt.status] ?? receipt.status],
    ['Price', formatMoney(receipt.breakdown.price, receipt.currency)],
    ...(receipt.breakdown.processing_fee !== null ? ([['Processing fee', formatMoney(receipt.breakdown.processing_fee, receipt.currency)]] as [string, string][]) : []),
    ['Total', formatMoney(receipt.breakdown.total, receipt.currency)],
    ...(receipt.rail === 'card' ? ([['Paid by', 'Card']] as [string, string][]) : []),
    // the quote: "Paid in" once all of it arrived, "Quoted" while nothing or only part did (a claim under review, a canceled
    // payment, a partly paid one, one the business accepted short: "Received" says what came; audit L2, 2026-11-30)
    ...(receipt.crypto ? ([[paidInFull(receipt) ? 'Paid in' : 'Quoted', `${receipt.crypto.amount} ${receipt.crypto.asset} on ${network(receipt.crypto.network)}`]] as [string, string][]) : []),
    ...(receipt.received_amount !== null && receipt.crypto ? ([['Received', `${receipt.received_amount} ${receipt.crypto.asset}`]] as [string, string][]) : []),
    ...(receipt.overpaid_amount !== null && receipt.crypto ? ([['Overpaid', `${receipt.overpaid_amount} ${receipt.crypto.asset}`]] as [string, string][]) : []),
    ...(receipt.reference ? ([['Reference', receipt.reference]] as [string, string][]) : []),
    ...(receipt.paid_at ? ([['Paid at', formatTime(receipt.paid_at)]] as [string, string][]) : []),
    ['Created', formatTime(receipt.created_at)],
    ['Receipt number', receipt.id],
  ];
  const transfers = receipt.transfers
    .map((t) => {
      const url = simulated ? null : httpUrl(t.url);
      const hash = url ? `<a href="${attr(url)}" rel="noopener noreferrer">${text(t.hash)}</a>` : text(t.hash);
      return `<li><span class="mono">${hash}</span> — ${text(t.amount)}${t.asset ? ` ${text(t.asset)}` : ''} on ${text(network(t.network))}</li>`;
    })
    .join('\n');
  return `${documentStart(`${simulated ? 'Test receipt' : 'Receipt'} — ${receipt.business.name}`, { style: paths.style })}
${simulated ? `${testModeBanner()}\n` : ''}<main class="sheet receipt" id="receipt">
<header class="summary">
<p class="merchant">${text(receipt.business.name)}</p>
<h1>${simulated ? 'Test receipt' : 'Receipt'}</h1>
${receipt.description !== null && receipt.description.trim() !== '' ? `<p class="muted">${text(receipt.description)}</p>` : ''}
</header>
<dl class="facts" id="receipt-facts">
${rows.map(([k, v]) => `<div><dt>${text(k)}</dt><dd>${text(v)}</dd></div>`).join('\n')}
</dl>
${transfers ? `<h2>Transfers</h2>\n<ul class="transfers">\n${transfers}\n</ul>` : ''}
${receipt.business.support_email ? `<p>Questions? Write to <a href="mailto:${attr(receipt.business.support_email)}">${text(receipt.business.support_email)}</a>.</p>` : ''}
<div class="actions">
${back ? `<a class="button primary" href="${attr(back)}" rel="noopener noreferrer">Return to ${text(receipt.business.name)}</a>` : ''}
<a class="button secondary" href="${attr(pageUrl)}">Back to the payment page</a>
<a class="link" href="${attr(`${paths.api}/public/receipts/${encodeURIComponent(receipt.id)}`)}">This receipt as JSON</a>
</div>
</main>
</body>
</html>
`;
}

/** All of the quote arrived: what was received, in the quote's coin, is at least the quoted amount (integers of the coin's units, no float). */
function paidInFull(receipt: PageReceipt['receipt']): boolean {
  if (receipt.crypto === null || receipt.received_amount === null) return false;
  let decimals: number;
  try {
    decimals = defaultRegistry.decimals(receipt.crypto.asset);
    return parseCryptoAmount(receipt.received_amount, decimals) >= parseCryptoAmount(receipt.crypto.amount, decimals);
  } catch {
    return false;
  }
}
