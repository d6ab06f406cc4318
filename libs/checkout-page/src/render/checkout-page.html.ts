import { defaultRegistry } from '@lib/chains';
import type { CheckoutPageModel } from '../page-model';
import { attr, documentStart, jsonData, testModeBanner, text } from './html';
import { PageView, countdownText, quoteEndsAt, viewOf } from './view';

/** Where the page's own files and routes are (the pathname of CHECKOUT_BASE_URL, and the API's prefix). */
export interface PagePaths {
  /** e.g. "/checkout" ("" when CHECKOUT_BASE_URL has no path). */
  base: string;
  /** e.g. "/api/v1". */
  api: string;
  /** Versioned URLs of the script and stylesheet. */
  script: string;
  style: string;
}

/** The names the page shows for networks and coins (the registry's). */
const NAMES = {
  networks: Object.fromEntries(defaultRegistry.networks().map((n) => [n.id, n.name])),
  assets: Object.fromEntries(defaultRegistry.assets().map((a) => [a.code, a.name])),
};

/**
 * The checkout page (decision 0027): server-rendered HTML, every value escaped, one section per
 * view with the one for the current state shown; the script (data in the JSON block) takes over
 * from there. Without JavaScript the customer still sees what they pay for and the state.
 */
export function checkoutPageHtml(model: CheckoutPageModel, paths: PagePaths): string {
  const { payment, business, checkout } = model;
  const view = viewOf(payment, checkout, model.source);
  const crypto = checkout?.crypto ?? null;
  // a transaction seen in the mempool holds the quote until it is mined (decision 0023, addendum of 2026-11-29)
  const pending = crypto?.pending_tx_hash ?? null;
  // with that transfer on its way the checkout can be neither canceled nor replaced (409): no button offers it
  const heldBack = pending ? ' hidden' : '';
  const show = (v: PageView | PageView[]) => ((Array.isArray(v) ? v.includes(view) : v === view) ? '' : ' hidden');
  const networkName = crypto ? NAMES.networks[crypto.network] ?? crypto.network : '';
  const coins = [...new Map(model.options.map((o) => [o.asset, o.asset_name])).entries()];
  const firstCoin = coins[0]?.[0] ?? null;
  const pageUrl = `${paths.base}/${encodeURIComponent(model.code)}`;
  // a link's page serves every payment the link makes: its receipt and its return name the checkout (the script keeps them current)
  const onLink = model.source === 'link' && checkout !== null ? `?s=${encodeURIComponent(checkout.id)}` : '';
  const resumeUrl = `${pageUrl}${onLink}`;
  const receiptUrl = `${pageUrl}/receipt${onLink}`;
  // the src of a QR image: only for a URI the checkout has (the route answers 404 otherwise); the script sets it as the checkout moves.
  // What is still due changes with each transfer: its image's URL names the amount (`due`), so no browser shows a cached earlier rest
  const qr = (part: 'quote' | 'remaining') => {
    const uri = part === 'remaining' ? crypto?.remaining_payment_uri : crypto?.payment_uri;
    const rest = part === 'remaining' ? `&amp;part=remaining&amp;due=${encodeURIComponent(crypto?.remaining_amount ?? '')}` : '';
    return checkout && uri ? ` src="${pageUrl}/qr.svg?s=${encodeURIComponent(checkout.id)}${rest}"` : '';
  };
  // what arrived and what is still due: the underpaid view and the one after its quote ended both show it
  // on a remainder checkout "Received" is the whole payment's (its own totals start at zero: the so-far fields), said "in all" (audit L4, 2026-11-30)
  const far = soFar(model);
  const partArrived = `<dl class="facts">
<div><dt>Received${checkout?.remainder ? ' in all' : ''}</dt><dd>${
    checkout?.remainder
      ? `<span data-f="so-far">${text(far?.amount)}</span> <span data-f="so-far-asset">${text(far?.asset)}</span>`
      : `<span data-f="received">${text(crypto?.received_amount)}</span> <span data-f="asset">${text(crypto?.asset)}</span>`
  }</dd></div>
<div><dt>Still due</dt><dd><span data-f="remaining">${text(crypto?.remaining_amount)}</span> <span data-f="asset">${text(crypto?.asset)}</span></dd></div>
</dl>`;
  // what the whole payment has received once its quote ended or was canceled: a remainder checkout's own totals start at zero (the script's soFar)
  const arrivedSoFar = `<dl class="facts">
<div><dt>Received</dt><dd><span data-f="so-far">${text(far?.amount)}</span> <span data-f="so-far-asset">${text(far?.asset)}</span></dd></div>
<div data-so-far-due${far?.remaining ? '' : ' hidden'}><dt>Still due</dt><dd><span data-f="so-far-due">${text(far?.remaining)}</span> <span data-f="so-far-asset">${text(far?.asset)}</span></dd></div>
</dl>`;
  // the quote's countdown from the first paint: to its end, or to the payment's own expiry when that comes first
  const countdown = countdownText(quoteEndsAt(payment, checkout), Date.parse(model.now));
  // canceling a checkout that holds part of the payment does not give it back, and no new checkout can be opened on the payment
  const cancelWarning = (where: 'pay' | 'underpaid', shown: boolean) =>
    `<p class="note" id="cancel-warning-${where}" data-cancel-warning${shown ? '' : ' hidden'}>If you cancel, what you already sent stays with this payment and is not sent back; only ${text(business.name)} can then ask you for the rest.</p>`;
  const warnPay = Boolean(checkout?.remainder) && !pending;
  const overpaid = crypto?.overpaid_amount && !/^0*(\.0*)?$/.test(crypto.overpaid_amount) ? crypto.overpaid_amount : null;
  const { heading } = model;
  const title = `Pay ${business.name}${model.source === 'link' || payment.description !== null ? ` — ${heading.title}` : ''}`;
  // a payment the business accepted short: what arrived, in the payment's currency, and that it is less than the price (audit M1, 2026-11-30)
  const short = payment.status === 'succeeded' && payment.amount_received_text !== null && payment.amount_received < payment.amount;
  const data = { ...model, base: paths.base, api: paths.api, names: NAMES };

  return `${documentStart(title, { style: paths.style, script: paths.script })}
${business.simulated ? `${testModeBanner()}\n` : ''}<main id="checkout" class="sheet" data-view="${view}">
<header class="summary">
<p class="merchant">${text(business.name)}</p>
<h1 id="description">${text(heading.title)}</h1>
${heading.detail !== null ? `<p class="detail" id="detail">${text(heading.detail)}</p>\n` : ''}
<p class="price"><span class="label">Amount due</span> <span id="price">${text(payment.amount_text)}</span></p>
</header>

<div id="status" class="status" role="status" aria-live="polite">${text(statusText(view, pending))}</div>
<p class="note" id="connection" role="alert" hidden></p>
<noscript><p class="note">Paying on this page needs JavaScript. You can still read its state above.</p></noscript>

<section id="view-choose" aria-labelledby="choose-title"${show('choose')}>
<h2 id="choose-title" tabindex="-1">How would you like to pay?</h2>
${
  model.paused
    ? `<p class="note" id="paused">${text(model.paused)}</p>`
    : model.rails.length === 0
      ? `<p class="note" id="no-rails">${text(business.name)} cannot take a payment on this page right now.${business.support_email ? ' Contact them for another way to pay.' : ''}</p>`
      : chooseForm(model, coins, firstCoin)
}
</section>

<section id="view-pay" aria-labelledby="pay-title"${show('pay')}>
<h2 id="pay-title" tabindex="-1">${checkout?.remainder ? 'Send the rest' : 'Send exactly'}</h2>
<p class="amount"><span data-f="crypto-amount">${text(crypto?.amount)}</span> <span data-f="asset">${text(crypto?.asset)}</span> <span class="muted">on <span data-f="network-name">${text(networkName)}</span></span></p>
<dl class="facts" data-remainder-facts${checkout?.remainder ? '' : ' hidden'}>
<div><dt>Already received</dt><dd><span data-f="so-far">${text(far?.amount)}</span> <span data-f="so-far-asset">${text(far?.asset)}</span></dd></div>
<div data-so-far-due${far?.remaining ? '' : ' hidden'}><dt>Still due</dt><dd><span data-f="so-far-due">${text(far?.remaining)}</span> <span data-f="so-far-asset">${text(far?.asset)}</span></dd></div>
</dl>
<img class="qr" data-qr="quote"${qr('quote')} width="240" height="240" alt="QR code of this payment request: the address and the exact amount, for a wallet app to scan">
<p class="label" id="address-label">To this address</p>
<p class="address"><code data-f="address" aria-labelledby="address-label">${text(crypto?.address)}</code></p>
${copyAndCountdown('amount', pending, countdown)}
${simulateControls(business.simulated, 'pay')}
${cancelWarning('pay', warnPay)}
<div class="actions">
<button type="button" class="link" id="change-coin"${checkout?.remainder || pending ? ' hidden' : ''}>Choose another coin</button>
<button type="button" class="link danger" data-action="cancel"${warnPay ? ' aria-describedby="cancel-warning-pay"' : ''}${heldBack}>Cancel payment</button>
</div>
<p class="form-error" id="pay-error" role="alert"></p>
</section>

<section id="view-confirming" aria-labelledby="confirming-title"${show('confirming')}>
<h2 id="confirming-title" tabindex="-1">Transfer detected</h2>
<p id="confirming-seen">We see <span data-f="received">${text(crypto?.received_amount)}</span> <span data-f="asset">${text(crypto?.asset)}</span> sent to this address in all. It counts once the network has confirmed it.</p>
<p data-short${crypto?.remaining_amount && crypto.remaining_amount !== '0' ? '' : ' hidden'}>That is less than the amount due: <strong><span data-f="remaining">${text(crypto?.remaining_amount)}</span> <span data-f="asset">${text(crypto?.asset)}</span></strong> will still be due once it is confirmed.</p>
<p class="confirmations">Confirmations: <strong><span data-f="conf-current">${text(checkout?.confirmations.current)}</span> of <span data-f="conf-required">${text(checkout?.confirmations.required)}</span></strong></p>
<progress id="conf-progress" max="${text(checkout?.confirmations.required ?? 1)}" value="${text(checkout?.confirmations.current ?? 0)}" aria-label="Confirmations"></progress>
<p class="muted tx" data-tx hidden>Transaction <a data-f="tx-link" href="#" rel="noopener noreferrer"></a><span data-f="tx-hash"></span></p>
</section>

<section id="view-underpaid" aria-labelledby="underpaid-title"${show('underpaid')}>
<h2 id="underpaid-title" tabindex="-1">Part of the payment arrived</h2>
${partArrived}
<p>Send the rest to the same address on <span data-f="network-name">${text(networkName)}</span> before the quote ends.</p>
<img class="qr" data-qr="remaining"${qr('remaining')} width="240" height="240" alt="QR code of the rest still due: the address and the remaining amount, for a wallet app to scan">
<p class="address"><code data-f="address">${text(crypto?.address)}</code></p>
${copyAndCountdown('remaining', pending, countdown)}
${simulateControls(business.simulated, 'underpaid')}
${cancelWarning('underpaid', !pending)}
<div class="actions"><button type="button" class="link danger" data-action="cancel"${pending ? '' : ' aria-describedby="cancel-warning-underpaid"'}${heldBack}>Cancel payment</button></div>
<p class="form-error" id="underpaid-error" role="alert"></p>
</section>

<section id="view-remainder-wait" aria-labelledby="remainder-title"${show('remainder-wait')}>
<h2 id="remainder-title" tabindex="-1">Part of the payment arrived</h2>
${arrivedSoFar}
<p>The quote has ended. ${text(business.name)} can send you a link to pay the rest; what you sent stays with this payment.</p>
<p><a class="button secondary" id="resume-link" href="${attr(resumeUrl)}">Check for a way to pay the rest</a></p>
</section>

<section id="view-expired" aria-labelledby="expired-title"${show('expired')}>
<h2 id="expired-title" tabindex="-1">The quote has ended</h2>
<p>Exchange rates move, so a quote is held for a limited time. Get a new quote for the same coin, or choose another.</p>
<div class="actions">
<button type="button" class="primary" id="new-quote">Get a new quote</button>
<button type="button" class="link" data-action="choose">Choose another coin</button>
</div>
<p class="form-error" id="expired-error" role="alert"></p>
${claimForm('Already sent the payment after the quote ended?')}
</section>

<section id="view-canceled" aria-labelledby="canceled-title"${show('canceled')}>
<h2 id="canceled-title" tabindex="-1">You canceled this checkout</h2>
<p>Nothing more is expected on it. You can still pay another way.</p>
<div class="actions"><button type="button" class="primary" data-action="choose">Pay again</button></div>
${checkout?.rail === 'card' ? '' : claimForm('Sent the payment before or after canceling?')}
</section>

<section id="view-canceled-part" aria-labelledby="canceled-part-title"${show('canceled-part')}>
<h2 id="canceled-part-title" tabindex="-1">You canceled this checkout</h2>
<p>Part of the payment had already arrived. It stays with this payment: canceling does not send it back.</p>
${arrivedSoFar}
<p>This page cannot take the rest any more. Only ${text(business.name)} can ask you for it: they can send you a link to pay the rest${business.support_email ? `, or answer you at <a href="${attr(`mailto:${business.support_email}`)}">${text(business.support_email)}</a>` : ''}.</p>
<p><a class="button secondary" id="resume-link-canceled" href="${attr(resumeUrl)}">Check for a way to pay the rest</a></p>
</section>

<section id="view-review" aria-labelledby="review-title"${show('review')}>
<h2 id="review-title" tabindex="-1">Under review</h2>
<p>${text(business.name)} is reviewing this payment. You will hear from them; there is nothing more to do here.</p>
<p class="muted" data-claimed hidden>Your claim was received.</p>
</section>

<section id="view-succeeded" aria-labelledby="succeeded-title"${show('succeeded')}>
<h2 id="succeeded-title" tabindex="-1">Payment received</h2>
<p data-paid="full"${short ? ' hidden' : ''}>Thank you. ${text(business.name)} has received <span>${text(payment.amount_text)}</span>.</p>
<p data-paid="short"${short ? '' : ' hidden'}>Thank you. ${text(business.name)} has received <span data-f="amount-received">${text(payment.amount_received_text)}</span>, less than the price of <span>${text(payment.amount_text)}</span>, and accepted it as this payment: nothing more is due from you.</p>
<p data-paid="settled" hidden>Thank you. This payment to ${text(business.name)} is settled: nothing more is due from you. Your receipt shows what arrived.</p>
<p data-overpaid${overpaid ? '' : ' hidden'}>You sent <strong><span data-f="overpaid">${text(overpaid)}</span> <span data-f="asset">${text(crypto?.asset)}</span></strong> more than the amount due. ${text(business.name)} has it; ask them about the difference.</p>
<div class="actions">
<a class="button secondary" id="receipt-link" href="${attr(receiptUrl)}">View your receipt</a>
${payment.success_url ? `<a class="button primary" id="success-link" href="${attr(payment.success_url)}" rel="noopener noreferrer">Return to ${text(business.name)}</a>` : ''}
</div>
</section>

<section id="view-closed" aria-labelledby="closed-title"${show('closed')}>
<h2 id="closed-title" tabindex="-1" data-canceled-text="This payment was canceled" data-expired-text="This payment can no longer be paid">${payment.status === 'canceled' ? 'This payment was canceled' : 'This payment can no longer be paid'}</h2>
<p id="closed-reason" data-canceled-text="${attr(`${business.name} canceled it. Nothing more is expected from you.`)}" data-expired-text="It expired before it was paid. Nothing more is expected from you.">${payment.status === 'canceled' ? `${text(business.name)} canceled it.` : 'It expired before it was paid.'} Nothing more is expected from you.</p>
</section>

<section id="view-card" aria-labelledby="card-title"${show('card')}>
<h2 id="card-title" tabindex="-1">Pay by card</h2>
<p id="card-message">You will be taken to the card processor’s secure page, then back here.</p>
<p class="muted" data-f="card-last" hidden></p>
<div class="actions">
<button type="button" class="primary" id="card-pay">Pay by card</button>
<a class="button primary" id="card-resume" href="#" hidden>Continue on the card page</a>
<button type="button" class="link" data-action="choose">Choose another way to pay</button>
<button type="button" class="link danger" data-action="cancel">Cancel payment</button>
</div>
<p class="form-error" id="card-error" role="alert"></p>
</section>

<p class="copy-feedback" id="copy-feedback" aria-live="polite"></p>
</main>
<footer class="foot">${business.support_email ? `<p id="support">Questions about this payment? Write to ${text(business.name)} at <a href="${attr(`mailto:${business.support_email}`)}">${text(business.support_email)}</a>.</p>
` : ''}<p id="payment-ref"${payment.id ? '' : ' hidden'}>Payment <span data-f="payment-id">${text(payment.id)}</span></p></footer>
<script type="application/json" id="checkout-data">${jsonData(data)}</script>
</body>
</html>
`;
}

/** The status line while a transfer seen in the mempool holds the quote (pay and underpaid views; the script's SEEN_TEXT). */
export const SEEN_TEXT = 'Your transfer was seen on the network. Waiting for it to be included in a block: the quote is held until then.';

/** The countdown's words while that transfer holds the quote (the script's SEEN_COUNTDOWN). */
export const SEEN_COUNTDOWN = 'as long as your transfer is on its way';

/** The status line (live region) of a view, which the script keeps current; `pending`: the checkout's `crypto.pending_tx_hash`. */
export function statusText(view: PageView, pending: string | null = null): string {
  if (pending && (view === 'pay' || view === 'underpaid')) return SEEN_TEXT;
  switch (view) {
    case 'choose':
      return 'Choose how to pay.';
    case 'pay':
      return 'Waiting for your transfer.';
    case 'confirming':
      return 'Transfer detected. Waiting for confirmations.';
    case 'underpaid':
      return 'Part of the payment arrived. The rest is still due.';
    case 'remainder-wait':
      return 'Part of the payment arrived. The quote has ended.';
    case 'expired':
      return 'The quote has ended.';
    case 'canceled':
      return 'Checkout canceled.';
    case 'canceled-part':
      return 'Checkout canceled. Part of the payment arrived.';
    case 'review':
      return 'Under review.';
    case 'succeeded':
      return 'Payment received.';
    case 'closed':
      return 'This payment is closed.';
    case 'card':
      return 'Ready to pay by card.';
  }
}

/** The choice of rail (radios only when there are two), coin and network, e-mail (cards, and crypto when the business asks) and country (cards). */
function chooseForm(model: CheckoutPageModel, coins: [string, string][], firstCoin: string | null): string {
  const first = model.rails[0];
  const cryptoShown = first === 'crypto';
  const emailShown = first === 'card' || model.ask_email;
  const railNames = { crypto: 'Crypto', card: 'Card' } as const;
  return `<form id="choose-form" novalidate>
${
  model.rails.length > 1
    ? `<fieldset class="rails">
<legend>Payment method</legend>
${model.rails.map((rail, i) => `<label class="choice"><input type="radio" name="rail" value="${rail}"${i === 0 ? ' checked' : ''}> ${railNames[rail]}</label>`).join('\n')}
</fieldset>`
    : `<p class="note" id="only-rail">Pay by ${first === 'card' ? 'card' : 'crypto'}.</p>`
}
${
  model.rails.includes('crypto')
    ? `<div id="crypto-fields"${cryptoShown ? '' : ' hidden'}>
${
  coins.length === 0
    ? `<p class="note" id="no-coins">This business cannot take crypto for this payment right now.</p>`
    : `<div class="field">
<label for="asset">Coin</label>
<select id="asset" name="asset" aria-describedby="asset-error">
${coins.map(([code, name]) => `<option value="${attr(code)}">${text(`${name} (${code})`)}</option>`).join('\n')}
</select>
<p class="field-error" id="asset-error"></p>
</div>
<div class="field">
<label for="network">Network</label>
<select id="network" name="network" aria-describedby="network-error">
${model.options
  .filter((o) => o.asset === firstCoin)
  .map((o) => `<option value="${attr(o.network)}">${text(o.network_name)}</option>`)
  .join('\n')}
</select>
<p class="field-error" id="network-error"></p>
</div>`
}
</div>`
    : ''
}
<div class="field" id="email-field"${emailShown ? '' : ' hidden'}>
<label for="email">E-mail for the receipt</label>
<input id="email" name="email" type="email" autocomplete="email" inputmode="email" maxlength="254" aria-describedby="email-error">
<p class="field-error" id="email-error"></p>
</div>
${
  model.rails.includes('card')
    ? `<div id="card-fields"${first === 'card' ? '' : ' hidden'}>
<div class="field">
<label for="country">Country (two-letter code, e.g. US)</label>
<input id="country" name="country" type="text" autocomplete="country" maxlength="2" pattern="[A-Za-z]{2}" required aria-describedby="country-error">
<p class="field-error" id="country-error"></p>
</div>
</div>`
    : ''
}
<p class="form-error" id="choose-error" role="alert"></p>
<button type="submit" class="primary" id="choose-submit">Continue</button>
</form>`;
}

/** The address and the amount to copy, and the quote's countdown (the pay and underpaid views: `amount` or `remaining`). */
function copyAndCountdown(amount: 'amount' | 'remaining', pending: string | null, countdown: string): string {
  return `<div class="actions">
<button type="button" class="secondary" data-copy="address">Copy address</button>
<button type="button" class="secondary" data-copy="${amount}">Copy amount</button>
</div>
<p class="countdown">Quote valid for <span data-f="countdown">${text(pending ? SEEN_COUNTDOWN : countdown)}</span></p>
<p class="muted tx" data-pending${pending ? '' : ' hidden'}>Seen transaction <span data-f="pending-hash">${text(pending)}</span></p>`;
}

function simulateControls(simulated: boolean, view: 'pay' | 'underpaid'): string {
  if (!simulated) return '';
  const buttons =
    view === 'pay'
      ? `<button type="button" class="secondary" data-simulate="exact">Simulate sending the exact amount</button>
<button type="button" class="secondary" data-simulate="underpaid">Simulate sending too little</button>`
      : `<button type="button" class="secondary" data-simulate="exact">Simulate sending the rest</button>`;
  return `<div class="simulate" role="group" aria-labelledby="simulate-${view}">
<p class="label" id="simulate-${view}">Test mode: no wallet needed</p>
${buttons}
</div>`;
}

/** The claim of a transfer the checkout did not take (expired, or canceled: spec §4 claim); `question` fits the view it is on. */
function claimForm(question: string): string {
  return `<details class="claim">
<summary>${text(question)}</summary>
<form class="claim-form" novalidate>
<p>Give us the transaction hash and the business will review it.</p>
<div class="field">
<label>Transaction hash <input name="tx_hash" type="text" required autocomplete="off" spellcheck="false"></label>
<p class="field-error" data-error="tx_hash"></p>
</div>
<div class="field">
<label>E-mail (optional, to hear back) <input name="email" type="email" autocomplete="email"></label>
<p class="field-error" data-error="email"></p>
</div>
<p class="form-error" data-error="form" role="alert"></p>
<button type="submit" class="secondary">Send claim</button>
</form>
</details>`;
}

/**
 * What the whole payment has received, and what is still due, shown once the quote on screen ended
 * or was canceled: the checkout's own totals, except on a remainder checkout (whose totals count
 * only what it took) where the payment's are read (`payment.received`); the script's `soFar`.
 */
export function soFar(model: Pick<CheckoutPageModel, 'payment' | 'checkout'>): { asset: string; amount: string; remaining: string | null } | null {
  const crypto = model.checkout?.crypto ?? null;
  if (model.checkout?.remainder || crypto === null) return model.payment.received;
  return { asset: crypto.asset, amount: crypto.received_amount, remaining: crypto.remaining_amount && !/^0*(\.0*)?$/.test(crypto.remaining_amount) ? crypto.remaining_amount : null };
}
