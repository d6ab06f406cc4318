// @ts-check
/* The checkout page's script (decision 0027), served at {base}/assets/checkout.js (script-src
   'self'; no inline script). Plain ES2017 for every current browser, no framework, no bundler;
   type-checked by TypeScript (this folder's tsconfig.json: checkJs, lib dom) and linted with
   browser globals. It reads the page's data block, then talks only to the public API:
   POST /checkouts, GET /checkouts/{id}, POST /checkouts/{id}/cancel | claim | mark-sent, the
   card attempt routes, and GET /public/receipts/{payment id} (a partly paid payment's status once
   its quote ended). Status moves by short polling of GET /checkouts/{id}. */

/**
 * @typedef {{ id: string, number: number, route: number, processor: string, status: 'pending' | 'succeeded' | 'declined' | 'timed_out', secure_url: string | null, expires_at: string, created_at: string }} CardAttempt
 * @typedef {{ route: number, routes: number, processor: string, attempt: CardAttempt | null, brand: string | null, last4: string | null, decline_code: string | null, retryable: boolean }} CardPart
 * @typedef {{ asset: string, network: string, amount: string, address: string, payment_uri: string, received_amount: string, remaining_amount: string | null, remaining_payment_uri: string | null, overpaid_amount?: string | null, tx_hash: string | null, explorer_url: string | null, pending_tx_hash?: string | null }} CryptoPart
 * @typedef {{ id: string, status: string, rail: 'crypto' | 'card', payment_id: string, crypto: CryptoPart | null, card: CardPart | null, confirmations: { current: number, required: number }, remainder: boolean, replaced_by: string | null, failure_code: string | null, review_reason: string | null, expires_at: string | null, created_at: string, updated_at: string }} Checkout
 * @typedef {{ asset: string, amount: string, remaining: string | null }} Received
 * @typedef {{ id: string | null, status: string, cancel_url: string | null, success_url: string | null, expires_at: string | null, received?: Received | null }} PagePayment
 * @typedef {{ asset: string, network: string, asset_name: string, network_name: string }} PayOption
 * @typedef {{ code: string, source: 'payment' | 'link', base: string, api: string, now: string, payment: PagePayment, checkout: Checkout | null, options: PayOption[], rails: ('crypto' | 'card')[], ask_email: boolean, business: { name: string, simulated: boolean }, names: { networks: Record<string, string>, assets: Record<string, string> } }} PageData
 * @typedef {{ code: string, message: string, field: string | null, status?: number, retryAfter?: string | null }} ApiError
 * @typedef {'choose' | 'pay' | 'confirming' | 'underpaid' | 'remainder-wait' | 'expired' | 'canceled' | 'canceled-part' | 'review' | 'succeeded' | 'closed' | 'card'} View
 */
(function () {
  'use strict';
  var dataBlock = document.getElementById('checkout-data');
  if (!dataBlock) return;
  /** @type {PageData} */
  var D = JSON.parse(dataBlock.textContent || '{}');
  var pageUrl = D.base + '/' + encodeURIComponent(D.code);
  // a payment's page opens checkouts on its payment; a payment link's page on the link (each makes or carries the link's payment)
  var codeField = D.source === 'link' ? 'link_code' : 'payment_code';
  var payment = D.payment;
  var checkout = D.checkout;
  // a remainder checkout as first painted: what it had received then is already in payment.received (see withRemainder)
  var painted = checkout && checkout.remainder && checkout.crypto ? { id: checkout.id, received: checkout.crypto.received_amount } : null;
  var clockOffset = Date.parse(D.now) - Date.now(); // the business's clock (a test clock may run ahead)
  /** @type {View | null} */
  var view = null;
  var choosing = false;
  var claimed = false;
  /** @type {number | undefined} */
  var pollTimer;
  var pollDelay = 2000;
  /** @type {number | undefined} */
  var countdownTimer;
  /** @type {number | undefined} */
  var expiryTimer;
  var lastStatusText = '';

  var POLL_MIN = 2000;
  var POLL_WAITING_MAX = 5000;
  var POLL_ERROR_MAX = 30000;
  // once the quote on screen has ended (or was canceled) with part of the payment received, the payment can still move (the
  // business accepts it, cancels it, a claim goes to review): the page asks for the payment's public receipt, slowly (audit L5, 2026-11-30)
  var SETTLE_MIN = 5000;
  var SETTLE_MAX = 60000;
  var settleDelay = SETTLE_MIN;
  /** @type {number | undefined} */
  var settleTimer;
  // the succeeded view as first painted states what arrived (the server knows the payment's amount_received); a payment seen
  // partly paid that succeeds while the page is open may have been accepted short: the page then claims no amount (audit M1, 2026-11-30)
  var paintedSucceeded = payment.status === 'succeeded';
  var sawPart = payment.status === 'underpaid';

  /** @param {string} id */
  function $(id) { return document.getElementById(id); }
  /** @param {string} id @returns {HTMLInputElement | null} */
  function field(id) { return /** @type {HTMLInputElement | null} */ (document.getElementById(id)); }
  /** @param {string} selector @param {ParentNode} [root] @returns {HTMLElement[]} */
  function all(selector, root) { return Array.prototype.slice.call((root || document).querySelectorAll(selector)); }
  /** A click on the element `id`, when the page has it, runs `act` with that element. @param {string} id @param {(button: HTMLElement) => void} act */
  function onClick(id, act) {
    var button = $(id);
    if (button) button.addEventListener('click', function () { act(/** @type {HTMLElement} */ (button)); });
  }

  // ------------------------------------------------------------------ API

  function randomKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (/** @type {number} */ b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }

  /* One Idempotency-Key per attempt (route and body), kept in sessionStorage until the service
     gives a definite answer: a retry after a lost answer or a 5xx is the same request. */
  /** @param {string} path @param {unknown} body */
  function idempotencyKey(path, body) {
    var slot = 'checkout-idempotency:' + path + ':' + JSON.stringify(body);
    var value = null;
    try { value = window.sessionStorage.getItem(slot); } catch (e) { value = null; }
    if (!value) {
      value = randomKey();
      try { window.sessionStorage.setItem(slot, value); } catch (e) { /* private mode: one key per call */ }
    }
    return { slot: slot, value: value };
  }

  /**
   * One call of the public API; resolves with the answer's `data`, rejects with an ApiError.
   * @param {'GET' | 'POST'} method @param {string} path @param {object} [body] @param {boolean} [idempotent]
   * @returns {Promise<Checkout>}
   */
  function call(method, path, body, idempotent) {
    /** @type {Record<string, string>} */
    var headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    var key = idempotent ? idempotencyKey(path, body) : null;
    if (key) headers['idempotency-key'] = key.value;
    return fetch(D.api + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' }).then(
      function (response) {
        return response.text().then(function (raw) {
          var json = null;
          try { json = raw ? JSON.parse(raw) : null; } catch (e) { json = null; }
          /** @type {ApiError | null} */
          var error = json && json.error ? json.error : null;
          var definite = response.status < 500 && response.status !== 429 && !(error && error.code === 'idempotency_key_in_use');
          if (key && definite) { try { window.sessionStorage.removeItem(key.slot); } catch (e) { /* nothing kept */ } }
          if (response.ok && json) { contact(true); return json.data; }
          // an answer without the API's envelope (a proxy's error page): words, not a status code
          /** @type {ApiError} */
          var failure = error || { code: 'http_' + response.status, message: response.status >= 500 ? NOT_ANSWERING : 'Something went wrong. Try again.', field: null };
          failure.status = response.status;
          failure.retryAfter = response.headers.get('retry-after');
          throw failure;
        });
      },
      function () {
        /** @type {ApiError} */
        var failure = { code: 'network', message: 'The service could not be reached. Check your connection and try again.', field: null };
        throw failure;
      }
    );
  }

  var NOT_ANSWERING = 'The payment service is not answering properly right now. Try again in a moment.';
  var LOST_CONTACT = 'This page has lost contact with the payment service and keeps trying. Anything you already sent is not affected.';

  /**
   * Whether the page is in contact with the service: a failed status poll says so on the page
   * (#connection), the next answer of any call takes it away (audit L5, 2026-11-29).
   * @param {boolean} ok
   */
  function contact(ok) {
    var notice = $('connection');
    if (!notice) return;
    if (ok) { if (!notice.hidden) { notice.hidden = true; notice.textContent = ''; } return; }
    if (notice.hidden) { notice.hidden = false; notice.textContent = LOST_CONTACT; }
  }

  /** @param {string | null | undefined} id */
  function networkName(id) { return (id && D.names.networks && D.names.networks[id]) || id || ''; }

  /** @type {Record<string, string | ((e: ApiError) => string)>} */
  var WORDS = {
    network: 'The service could not be reached. Check your connection and try again.',
    rate_limited: function (e) { return 'Too many attempts from your connection. Wait ' + (e.retryAfter || 'a few') + ' seconds, then try again.'; },
    temporarily_unavailable: 'Paying this way is paused for a moment. Try again shortly, or choose another coin or network.',
    upstream_unavailable: 'The service could not reach the price source or the card processor right now. Try again in a moment.',
    internal_error: 'Something went wrong on our side. Try again in a moment.',
    not_accepting: 'The business cannot receive this coin on this network right now. Choose another network.',
    asset_unavailable: 'This coin is not available on this network for this payment. Choose another.',
    payment_paid: 'This payment has already received funds. Reload the page to see where it stands.',
    payment_canceled: 'The business canceled this payment.',
    payment_expired: 'This payment has expired and can no longer be paid.',
    business_suspended: 'The business is not taking new payments right now.',
    checkout_expired: 'The quote has ended. Get a new quote.',
    checkout_canceled: 'This checkout was canceled.',
    checkout_failed: 'This checkout failed. Start a new one.',
    checkout_not_cancelable: 'This checkout can no longer be canceled: funds may be on the way, or it has ended.',
    checkout_not_supersedable: 'This quote cannot be replaced: funds may be on the way.',
    checkout_not_claimable: 'Only a quote that has ended or was canceled takes a claim.',
    already_claimed: 'A claim is already under review for this payment.',
    invalid_tx_hash: function () { return 'That is not a transaction hash on ' + networkName(checkout && checkout.crypto ? checkout.crypto.network : '') + '. Copy it from your wallet or a block explorer.'; },
    invalid_email: 'Enter a valid e-mail address, like name@example.com.',
    email_required: 'Enter your e-mail address: this business sends your receipt there.',
    rail_unavailable: function (e) { return e.field === 'country' ? 'Card payments are not available for this country. Pay with crypto instead.' : 'This business does not take this way of paying. Choose another.'; },
    amount_out_of_range: 'Cards can pay between 5 and 10,000 in the payment\u2019s currency. Choose crypto for this amount.',
    customer_blocked: 'This business cannot take a payment from this e-mail address.',
    wrong_rail: 'That does not apply to this way of paying.',
    route_in_progress: 'Your payment on the card page may still go through. Wait a moment before trying again.',
    no_route: 'No other way to pay by card is available. Pay with crypto instead.',
    stale_route: 'The card payment had moved on since this page was shown. Look at where it stands now, then try again.',
    checkout_not_retryable: 'This card checkout cannot be tried again. Choose another way to pay.',
    checkout_not_awaiting: 'This checkout is not waiting for a card payment any more.',
    not_found: 'This checkout could not be found. Reload the page.'
  };

  /** What a card's decline code means, in words. */
  /** @type {Record<string, string>} */
  var DECLINES = {
    card_declined: 'Your card was declined.',
    insufficient_funds: 'Your card was declined: not enough funds.',
    expired_card: 'Your card was declined: it has expired.',
    authentication_failed: 'The card\u2019s security check did not succeed.',
    do_not_retry: 'Your card was declined, and the card issuer asks not to try it again.',
    processor_timeout: 'The card payment page timed out.'
  };

  /** @param {ApiError} error */
  function words(error) {
    var entry = WORDS[error.code];
    if (typeof entry === 'function') return entry(error);
    if (entry) return entry;
    // the API's refusal of a country names its own rule (ISO 3166-1, upper case): the customer gets a sentence for people (audit L2, 2026-11-29)
    if (error.code === 'invalid_request' && error.field === 'country' && error.status) {
      var countryInput = field('country');
      var given = countryInput ? countryInput.value.trim().toUpperCase() : '';
      return (given ? 'We do not recognise \u201c' + given + '\u201d as a country. ' : '') + 'Enter the two-letter code of your country, like US for the United States or DE for Germany.';
    }
    if (error.code === 'invalid_request' && error.message) return error.message;
    return error.message || 'Something went wrong. Try again.';
  }

  /** @param {ParentNode} root */
  function clearErrors(root) {
    all('.field-error, .form-error', root).forEach(function (el) { el.textContent = ''; });
    all('[aria-invalid]', root).forEach(function (el) { el.removeAttribute('aria-invalid'); });
  }

  /**
   * An API error in words, next to the field it names when the form has one, else for the form.
   * @param {ParentNode} root @param {ApiError} error @param {HTMLElement | null} [formSlot]
   */
  function showError(root, error, formSlot) {
    var message = words(error);
    /** @type {HTMLElement | null} */
    var slot = null;
    if (error.field && /^[a-z_]+$/.test(error.field)) slot = root.querySelector('[data-error="' + error.field + '"]') || root.querySelector('#' + error.field + '-error');
    if (slot) {
      slot.textContent = message;
      /** @type {HTMLElement | null} */
      var input = root.querySelector('[name="' + error.field + '"]');
      if (input) {
        if (!slot.id) slot.id = 'error-' + randomKey().slice(0, 8);
        input.setAttribute('aria-describedby', slot.id);
        input.setAttribute('aria-invalid', 'true');
        input.focus();
      }
      return;
    }
    var target = formSlot || root.querySelector('[data-error="form"]') || root.querySelector('.form-error');
    if (target) target.textContent = message;
  }

  /** @param {HTMLElement | null} button @param {boolean} on */
  function busy(button, on) {
    if (!(button instanceof HTMLButtonElement)) return;
    button.disabled = on;
    if (on) button.setAttribute('aria-busy', 'true'); else button.removeAttribute('aria-busy');
  }

  // ------------------------------------------------------------------ state

  /** The view for a payment and the checkout on screen (render/view.ts decides the same way for the first paint). @param {PagePayment} p @param {Checkout | null} c @returns {View} */
  function viewOf(p, c) {
    if (p.status === 'succeeded' || (c && c.status === 'completed')) return 'succeeded';
    if (p.status === 'needs_review' || (c && c.status === 'needs_review')) return 'review';
    // a link's payment fails when its customer cancels its checkout, or lets it expire with nothing sent: they may still pay again (a new payment)
    if (D.source === 'link' && p.status === 'failed' && c && (c.status === 'canceled' || c.status === 'expired')) return choosing ? 'choose' : c.status;
    if (p.status === 'canceled' || p.status === 'failed') return 'closed';
    if (choosing || !c) return 'choose';
    if (c.rail === 'card') return c.status === 'canceled' ? 'canceled' : 'card';
    switch (c.status) {
      case 'open': return 'pay';
      case 'confirming': return 'confirming';
      case 'awaiting_customer': return 'underpaid';
      case 'expired': return p.status === 'underpaid' ? 'remainder-wait' : 'expired';
      // part of the payment arrived: it stays with the payment, which takes no new checkout (409 payment_paid); only the business can ask for the rest
      case 'canceled': return p.status === 'underpaid' ? 'canceled-part' : 'canceled';
      default: return 'choose';
    }
  }

  /** @type {Record<View, string>} */
  var STATUS_TEXT = {
    choose: 'Choose how to pay.',
    pay: 'Waiting for your transfer.',
    confirming: 'Transfer detected. Waiting for confirmations.',
    underpaid: 'Part of the payment arrived. The rest is still due.',
    'remainder-wait': 'Part of the payment arrived. The quote has ended.',
    expired: 'The quote has ended.',
    canceled: 'Checkout canceled.',
    'canceled-part': 'Checkout canceled. Part of the payment arrived.',
    review: 'Under review.',
    succeeded: 'Payment received.',
    closed: 'This payment is closed.',
    card: 'Ready to pay by card.'
  };

  /** The status line while a transfer seen in the mempool holds the quote (pay and underpaid views; the server's SEEN_TEXT). */
  var SEEN_TEXT = 'Your transfer was seen on the network. Waiting for it to be included in a block: the quote is held until then.';

  /** The countdown's words while that transfer holds the quote (the server's SEEN_COUNTDOWN). */
  var SEEN_COUNTDOWN = 'as long as your transfer is on its way';

  /** The status line of the card view once an attempt exists. @type {Record<string, string>} */
  var CARD_STATUS = {
    pending: 'Waiting for the card processor.',
    declined: 'Card payment declined.',
    timed_out: 'Card payment timed out.'
  };

  /** @param {string | null | undefined} amount */
  function isZero(amount) { return !amount || /^0*(\.0*)?$/.test(amount); }

  /** What a checkout says about its payment (the page reads no payment after the first render). @param {Checkout} c */
  function learnFrom(c) {
    if (c.status === 'completed') payment.status = 'succeeded';
    else if (c.status === 'needs_review') payment.status = 'needs_review';
    else if (c.status === 'awaiting_customer' || (c.status === 'expired' && c.crypto && !isZero(c.crypto.received_amount))) payment.status = 'underpaid';
    // the business canceled the payment, or it expired, under an open checkout: the page closes as it would on a reload
    else if (c.status === 'failed' && c.failure_code === 'payment_canceled') payment.status = 'canceled';
    else if (c.status === 'failed' && c.failure_code === 'payment_expired') payment.status = 'failed';
    // paid another way while this card page was open (decision 0026): the page shows the payment paid
    else if (c.status === 'failed' && c.failure_code === 'payment_succeeded') payment.status = 'succeeded';
  }

  /**
   * The payment passed its expires_at on the business's clock: POST /checkouts answers 410
   * payment_expired from then on and the service's timer fails it, so the page closes as a reload
   * would (no choice left to make) — unless a transfer on screen is confirming (it decides).
   */
  function expiredByTime() {
    if (payment.status !== 'pending' || !payment.expires_at) return false;
    if (checkout && (checkout.status === 'confirming' || seenPending(checkout))) return false;
    return Date.parse(payment.expires_at) <= Date.now() + clockOffset;
  }

  /**
   * The transaction seen in the network's mempool before the quote ended and not mined yet: the
   * service holds the quote and the payment for it (decision 0023, addendum of 2026-11-29).
   * @param {Checkout | null} c @returns {string | null}
   */
  function seenPending(c) {
    return c && c.crypto && c.crypto.pending_tx_hash ? c.crypto.pending_tx_hash : null;
  }

  /** Renders again when the payment's expires_at comes (setTimeout takes at most 2^31-1 ms: a later end is timed again then). */
  function scheduleExpiry() {
    window.clearTimeout(expiryTimer);
    expiryTimer = undefined;
    if (payment.status !== 'pending' || !payment.expires_at) return;
    var left = Date.parse(payment.expires_at) - (Date.now() + clockOffset);
    expiryTimer = window.setTimeout(render, Math.min(Math.max(left + 100, 0), 0x7fffffff));
  }

  /** The API refused because the payment expired: it is closed, whatever the page believed. @param {ApiError} error */
  function learnFromError(error) {
    if (error.code === 'payment_expired' && payment.status === 'pending') { payment.status = 'failed'; render(); }
  }

  /** The footer's reference: the payment on screen (a link's page has none until a checkout made it). */
  function fillPaymentRef() {
    var ref = $('payment-ref');
    if (!ref) return;
    ref.hidden = !payment.id;
    setText('payment-id', payment.id || '');
  }

  /** @param {string} name @param {unknown} value */
  function setText(name, value) {
    all('[data-f="' + name + '"]').forEach(function (el) {
      var next = value === null || value === undefined ? '' : String(value);
      if (el.textContent !== next) el.textContent = next;
    });
  }

  /** @param {string} message */
  function setStatus(message) {
    if (message === lastStatusText) return;
    lastStatusText = message;
    var live = $('status');
    if (live) live.textContent = message;
  }

  /**
   * The image of a part: what is still due changes with each transfer, so its URL names the amount
   * (`due`) and a browser never shows a cached image of an earlier rest.
   * @param {Checkout} c @param {'quote' | 'remaining'} part
   */
  function qrSource(c, part) {
    var rest = part === 'remaining' && c.crypto ? '&part=remaining&due=' + encodeURIComponent(c.crypto.remaining_amount || '') : '';
    return pageUrl + '/qr.svg?s=' + encodeURIComponent(c.id) + rest;
  }

  /** @param {Checkout} c */
  function fillCrypto(c) {
    var cr = c.crypto;
    if (!cr) return;
    var quote = cr;
    setText('crypto-amount', cr.amount);
    setText('asset', cr.asset);
    setText('network-name', networkName(cr.network));
    setText('address', cr.address);
    setText('received', cr.received_amount);
    setText('remaining', cr.remaining_amount || '0');
    setText('overpaid', cr.overpaid_amount || '');
    all('[data-overpaid]').forEach(function (el) { el.hidden = isZero(quote.overpaid_amount); });
    var far = soFar(c);
    setText('so-far', far ? far.amount : '');
    setText('so-far-asset', far ? far.asset : '');
    setText('so-far-due', far && far.remaining ? far.remaining : '');
    all('[data-so-far-due]').forEach(function (el) { el.hidden = !far || !far.remaining; });
    // a short transfer still confirming: say now what will be left, not only after the confirmations
    var short = Boolean(cr.remaining_amount) && cr.remaining_amount !== '0';
    all('[data-short]').forEach(function (el) {
      el.hidden = !short;
    });
    all('img[data-qr="quote"]').forEach(function (img) {
      var src = qrSource(c, 'quote');
      if (img.getAttribute('src') !== src) img.setAttribute('src', src);
      img.setAttribute('alt', 'QR code of this payment request: ' + quote.amount + ' ' + quote.asset + ' to the address below, for a wallet app to scan');
    });
    all('img[data-qr="remaining"]').forEach(function (img) {
      if (!quote.remaining_payment_uri) { img.hidden = true; return; }
      img.hidden = false;
      var src = qrSource(c, 'remaining');
      if (img.getAttribute('src') !== src) img.setAttribute('src', src);
    });
    all('[data-tx]').forEach(function (el) {
      el.hidden = !quote.tx_hash;
      /** @type {HTMLAnchorElement | null} */
      var link = el.querySelector('[data-f="tx-link"]');
      /** @type {HTMLElement | null} */
      var plain = el.querySelector('[data-f="tx-hash"]');
      if (!link || !plain) return;
      // a simulated business's hashes are on no chain: shown, never linked to a real explorer
      var url = !D.business.simulated && quote.explorer_url && /^https?:\/\//.test(quote.explorer_url) ? quote.explorer_url : null;
      link.hidden = !url;
      plain.hidden = !!url;
      if (url) { link.setAttribute('href', url); link.textContent = quote.tx_hash; } else { plain.textContent = quote.tx_hash || ''; }
    });
    // seen in the mempool, not mined yet: its hash, plain (the service gives an explorer_url for a mined tx_hash only)
    var pending = seenPending(c);
    all('[data-pending]').forEach(function (el) {
      el.hidden = !pending;
    });
    setText('pending-hash', pending);
  }

  /**
   * What the whole payment has received and what is still due, once the quote on screen ended or was
   * canceled: the checkout's own totals, except on a remainder checkout (its totals count only what
   * it took), where the payment's from the first paint are read. render/checkout-page.html.ts soFar.
   * @param {Checkout} c @returns {Received | null}
   */
  function soFar(c) {
    var cr = c.crypto;
    if (c.remainder && cr) return withRemainder(c, cr);
    if (c.remainder || !cr) return payment.received || null;
    return { asset: cr.asset, amount: cr.received_amount, remaining: isZero(cr.remaining_amount) ? null : cr.remaining_amount };
  }

  /**
   * The payment's totals with what its remainder checkout on screen received since the first
   * paint: the page reads the payment once, so what this checkout has received since (a second
   * short transfer, say) is added to what the payment held then (audit page F6). Decimal strings
   * in the coin's units, added as integers: no floating point near an amount.
   * @param {Checkout} c @param {CryptoPart} cr
   */
  function withRemainder(c, cr) {
    var then = payment.received;
    if (!then || !painted || painted.id !== c.id || then.asset !== cr.asset) return then || null;
    var amounts = [then.amount, then.remaining || '0', painted.received, cr.received_amount];
    var scale = Math.max.apply(null, amounts.map(function (a) { return (a.split('.')[1] || '').length; }));
    var u = amounts.map(function (a) { var parts = a.split('.'); return BigInt(parts[0] + ((parts[1] || '') + '0'.repeat(scale)).slice(0, scale)); });
    var zero = BigInt(0);
    var received = u[0] - u[2] + u[3];
    var due = u[0] + u[1] - received;
    return { asset: then.asset, amount: decimalOf(received, scale), remaining: due > zero ? decimalOf(due, scale) : null };
  }

  /**
   * The checkout on screen completed with all of its quote received (the first quote, the rest sent
   * to it; or a remainder, which is the rest): the whole price arrived. Decimal strings compared as
   * integers of the same scale, no floating point.
   * @param {Checkout | null} c
   */
  function paidWholeQuote(c) {
    var cr = c && c.status === 'completed' ? c.crypto : null;
    if (!cr || isZero(cr.received_amount)) return false;
    var amounts = [cr.received_amount, cr.amount];
    var scale = Math.max.apply(null, amounts.map(function (a) { return (a.split('.')[1] || '').length; }));
    var u = amounts.map(function (a) { var parts = a.split('.'); return BigInt(parts[0] + ((parts[1] || '') + '0'.repeat(scale)).slice(0, scale)); });
    return u[0] >= u[1];
  }

  /** @param {bigint} units @param {number} scale */
  function decimalOf(units, scale) {
    var digits = units.toString().padStart(scale + 1, '0');
    var whole = digits.slice(0, digits.length - scale);
    var fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
    return fraction ? whole + '.' + fraction : whole;
  }

  /** Why the last card attempt did not go through, in words. @param {Checkout} c @param {CardPart} card */
  function declineWords(c, card) {
    var attempt = card.attempt;
    if (attempt && attempt.status === 'timed_out') return DECLINES.processor_timeout;
    var code = card.decline_code || c.failure_code;
    if (!code) return 'Your card was declined.';
    return DECLINES[code] || 'Your card was declined (' + code + ').';
  }

  /** @param {Checkout} c */
  function fillCard(c) {
    var card = c.card;
    var message = $('card-message');
    var pay = $('card-pay');
    if (!card || !message || !pay) return;
    var attempt = card.attempt;
    var last = all('[data-f="card-last"]')[0];
    if (last) {
      last.hidden = !card.last4;
      last.textContent = card.last4 ? (card.brand ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) + ' ' : 'Card ') + 'ending ' + card.last4 : '';
    }
    // only a checkout still waiting for the customer can be canceled (a declined one has failed)
    all('#view-card [data-action="cancel"]').forEach(function (button) { button.hidden = c.status !== 'open' && c.status !== 'awaiting_customer'; });
    pay.hidden = false;
    pay.textContent = 'Pay by card';
    // back from the processor's page without paying: the way back to it while the attempt is pending (audit page F4)
    var resume = $('card-resume');
    var secure = attempt && attempt.status === 'pending' ? webUrl(attempt.secure_url) : null;
    if (resume instanceof HTMLAnchorElement) {
      resume.hidden = !secure;
      if (secure) resume.href = secure;
    }
    if (!attempt) {
      message.textContent = 'You will be taken to the card processor\u2019s secure page, then back here.';
    } else if (attempt.status === 'pending') {
      message.textContent = secure
        ? 'Waiting for the card processor\u2019s answer\u2026 If you left the card page before paying, continue there.'
        : 'Waiting for the card processor\u2019s answer\u2026';
      pay.hidden = true;
    } else if (attempt.status === 'declined' || attempt.status === 'timed_out') {
      var why = declineWords(c, card);
      if (card.retryable === false) {
        message.textContent = why + ' This card checkout cannot be tried again. Choose another way to pay.';
        pay.hidden = true;
      } else {
        message.textContent = why + ' You can try again.';
        pay.textContent = 'Try again';
      }
    } else if (attempt.status === 'succeeded') {
      message.textContent = 'Your card payment went through.';
      pay.hidden = true;
    }
  }

  /** @param {Checkout} c */
  function fillTimes(c) {
    setText('conf-current', c.confirmations.current);
    setText('conf-required', c.confirmations.required);
    var progress = $('conf-progress');
    if (progress instanceof HTMLProgressElement) { progress.max = Math.max(1, c.confirmations.required); progress.value = c.confirmations.current; }
  }

  function render() {
    if (expiredByTime()) payment.status = 'failed'; // as PaymentExpired leaves it
    if (payment.status === 'underpaid') sawPart = true;
    var next = viewOf(payment, checkout);
    if (next === 'succeeded' && !paintedSucceeded && sawPart && !paidWholeQuote(checkout)) {
      all('[data-paid]').forEach(function (el) { el.hidden = el.getAttribute('data-paid') !== 'settled'; });
    }
    if (checkout) {
      fillCrypto(checkout);
      fillTimes(checkout);
      if (checkout.rail === 'card') fillCard(checkout);
      var title = $('pay-title');
      if (title) title.textContent = checkout.remainder ? 'Send the rest' : 'Send exactly';
      // a remainder's pay view says what the payment already holds (audit L4, 2026-11-30)
      var remainderFacts = !!checkout.remainder;
      all('[data-remainder-facts]').forEach(function (el) { el.hidden = !remainderFacts; });
      // a transfer on its way (seen in the mempool): the checkout can be neither replaced nor canceled (409)
      var held = !!seenPending(checkout);
      var change = $('change-coin');
      if (change) change.hidden = !!checkout.remainder || held;
      all('#view-pay [data-action="cancel"], #view-underpaid [data-action="cancel"]').forEach(function (button) { button.hidden = held; });
      // canceling a checkout that holds part of the payment: what arrived stays, and only the business can ask for the rest (audit M1)
      var warned = { pay: !checkout.remainder || held, underpaid: held };
      ['pay', 'underpaid'].forEach(function (where) {
        var off = where === 'pay' ? warned.pay : warned.underpaid;
        var note = $('cancel-warning-' + where);
        if (note) note.hidden = off;
        // the cancel button is described by the note only while it is shown
        all('#view-' + where + ' [data-action="cancel"]').forEach(function (button) {
          if (off) button.removeAttribute('aria-describedby'); else button.setAttribute('aria-describedby', 'cancel-warning-' + where);
        });
      });
    }
    all('[data-claimed]').forEach(function (el) { el.hidden = !claimed; });
    // claims are for crypto quotes (§3): a canceled card checkout offers none
    all('details.claim').forEach(function (el) { el.hidden = !!checkout && checkout.rail === 'card'; });
    if (next === 'closed') {
      var closedAs = payment.status === 'canceled' ? 'canceled' : 'expired';
      ['closed-title', 'closed-reason'].forEach(function (id) {
        var el = $(id);
        var wording = el && el.getAttribute('data-' + closedAs + '-text');
        if (el && wording && el.textContent !== wording) el.textContent = wording;
      });
    }
    if (next !== view) {
      var focusLost = !document.activeElement || document.activeElement === document.body;
      all('#checkout > section').forEach(function (section) {
        var shown = section.id === 'view-' + next;
        if (!shown && section.contains(document.activeElement)) focusLost = true;
        section.hidden = !shown;
      });
      var main = $('checkout');
      if (main) main.setAttribute('data-view', next);
      if (next === 'choose') prepareChoice();
      var previous = view;
      view = next;
      if (previous !== null && focusLost) {
        /** @type {HTMLElement | null} */
        var heading = document.querySelector('#view-' + next + ' h2');
        if (heading) heading.focus();
      }
    }
    var status = STATUS_TEXT[next];
    if (next === 'confirming' && checkout) status = 'Transfer detected. Confirmations: ' + checkout.confirmations.current + ' of ' + checkout.confirmations.required + '.';
    if ((next === 'pay' || next === 'underpaid') && seenPending(checkout)) status = SEEN_TEXT;
    if (next === 'card' && checkout && checkout.card && checkout.card.attempt) status = CARD_STATUS[checkout.card.attempt.status] || status;
    setStatus(status);
    fillPaymentRef();
    tickCountdown();
    schedulePoll();
    scheduleSettle();
    scheduleExpiry();
  }

  /**
   * A checkout's times are on the business's clock and have passed: one later than the page's idea
   * of that clock's now means the clock moved (a test clock advanced), and the page follows it, so
   * the countdown stays true without a reload (decision 0027; audit L6, 2026-11-29).
   * @param {Checkout} c
   */
  function followClock(c) {
    var seen = Math.max(Date.parse(c.updated_at) || 0, Date.parse(c.created_at) || 0);
    var wall = Date.now();
    if (seen > wall + clockOffset) clockOffset = seen - wall;
  }

  /** @param {Checkout} c */
  function update(c) {
    if (checkout && c.id !== checkout.id) { claimed = false; }
    followClock(c);
    checkout = c;
    learnFrom(c);
    render();
  }

  // ------------------------------------------------------------------ live status: short polling

  function polling() {
    if (!checkout) return false;
    if (view === 'pay' || view === 'confirming' || view === 'underpaid') return true;
    return view === 'card' && !!checkout.card && !!checkout.card.attempt && checkout.card.attempt.status === 'pending';
  }

  function schedulePoll() {
    window.clearTimeout(pollTimer);
    pollTimer = undefined;
    if (!polling()) return;
    var delay = document.hidden ? Math.max(pollDelay, 10000) : pollDelay;
    pollTimer = window.setTimeout(poll, delay);
  }

  function poll() {
    var asked = checkout;
    if (!asked) return;
    var before = asked;
    call('GET', '/checkouts/' + encodeURIComponent(before.id)).then(
      function (c) {
        if (checkout !== before) return; // the customer moved on meanwhile
        var changed = c.updated_at !== before.updated_at || c.status !== before.status;
        // waiting for the customer, the page asks less often over time; once something moves, every 2 s
        pollDelay = changed || c.status === 'confirming' ? POLL_MIN : Math.min(Math.round(pollDelay * 1.1), POLL_WAITING_MAX);
        if (c.replaced_by && c.status !== 'completed' && c.status !== 'confirming') return follow(c.replaced_by, c);
        update(c);
      },
      function (error) {
        // no answer, or a server error: the page says it lost contact until an answer comes (a 4xx is an answer)
        if (error.code === 'network' || (error.status || 0) >= 500) contact(false);
        pollDelay = Math.min(pollDelay * 2, POLL_ERROR_MAX);
        schedulePoll();
      }
    );
  }

  /** Another tab chose another coin: show the checkout that replaced this one. @param {string} id @param {Checkout} fallback */
  function follow(id, fallback) {
    call('GET', '/checkouts/' + encodeURIComponent(id)).then(
      function (c) { remember(c); update(c); },
      function () { update(fallback); }
    );
  }

  document.addEventListener('visibilitychange', function () {
    if (!document.hidden && polling()) { pollDelay = POLL_MIN; window.clearTimeout(pollTimer); poll(); }
    if (!document.hidden && settling()) { settleDelay = SETTLE_MIN; window.clearTimeout(settleTimer); checkPayment(); }
  });

  /** The quote on screen ended or was canceled while the payment, partly paid, is not final: its state is asked for. */
  function settling() {
    return !!payment.id && payment.status === 'underpaid' && (view === 'remainder-wait' || view === 'canceled-part');
  }

  function scheduleSettle() {
    window.clearTimeout(settleTimer);
    settleTimer = undefined;
    if (!settling()) { settleDelay = SETTLE_MIN; return; }
    var delay = document.hidden ? Math.max(settleDelay, 30000) : settleDelay;
    settleTimer = window.setTimeout(checkPayment, delay);
  }

  /** GET /public/receipts/{payment id}: the payment's status; a new one is shown as a reload would show it. */
  function checkPayment() {
    var id = payment.id;
    if (!id || !settling()) return;
    call('GET', '/public/receipts/' + encodeURIComponent(id)).then(
      function (answer) {
        if (payment.id !== id) return;
        settleDelay = Math.min(Math.round(settleDelay * 1.5), SETTLE_MAX);
        /** @type {{ status?: unknown }} */
        var receipt = /** @type {{ status?: unknown }} */ (/** @type {unknown} */ (answer));
        if (receipt && typeof receipt.status === 'string' && receipt.status !== payment.status) { payment.status = receipt.status; render(); return; }
        scheduleSettle();
      },
      function (error) {
        if (error.code === 'network' || (error.status || 0) >= 500) contact(false);
        settleDelay = Math.min(settleDelay * 2, SETTLE_MAX);
        scheduleSettle();
      }
    );
  }

  // ------------------------------------------------------------------ countdown

  /** @param {number} n */
  function pad(n) { return (n < 10 ? '0' : '') + n; }

  /**
   * When the quote on screen stops taking money, as the countdown says: its end, or the payment's own
   * expires_at when that comes first (a pending payment then expires and fails the checkout; audit
   * M2, 2026-11-29). render/view.ts quoteEndsAt decides the same for the first paint.
   * @param {Checkout} c @returns {string | null}
   */
  function quoteEnd(c) {
    var quote = c.expires_at;
    var own = payment.status === 'pending' ? payment.expires_at : null;
    if (!quote || !own) return quote;
    return Date.parse(own) < Date.parse(quote) ? own : quote;
  }

  function tickCountdown() {
    window.clearTimeout(countdownTimer);
    var end = checkout ? quoteEnd(checkout) : null;
    if (!checkout || !end || (view !== 'pay' && view !== 'underpaid')) return;
    if (seenPending(checkout)) { setText('countdown', SEEN_COUNTDOWN); return; }
    var left = Math.floor((Date.parse(end) - (Date.now() + clockOffset)) / 1000);
    var text;
    if (left <= 0) {
      text = 'ending now';
      if (pollDelay > POLL_MIN) { pollDelay = POLL_MIN; schedulePoll(); }
    } else {
      var h = Math.floor(left / 3600);
      var m = Math.floor((left % 3600) / 60);
      var s = left % 60;
      text = (h > 0 ? h + ':' + pad(m) : String(m)) + ':' + pad(s);
    }
    setText('countdown', text);
    countdownTimer = window.setTimeout(tickCountdown, 1000);
  }

  // ------------------------------------------------------------------ choosing

  /** @param {string} asset */
  function optionsFor(asset) { return D.options.filter(function (o) { return o.asset === asset; }); }

  /** @param {string} asset @param {string | null} selected */
  function fillNetworks(asset, selected) {
    var select = $('network');
    if (!select) return;
    while (select.firstChild) select.removeChild(select.firstChild);
    var list = select;
    optionsFor(asset).forEach(function (o) {
      var option = document.createElement('option');
      option.value = o.network;
      option.textContent = o.network_name;
      if (o.network === selected) option.selected = true;
      list.appendChild(option);
    });
  }

  /** The rail chosen: the checked radio, else the only rail offered. @returns {'crypto' | 'card'} */
  function selectedRail() {
    /** @type {HTMLInputElement | null} */
    var checked = document.querySelector('input[name="rail"]:checked');
    if (checked) return checked.value === 'card' ? 'card' : 'crypto';
    return D.rails && D.rails.length > 0 ? D.rails[0] : 'crypto';
  }

  function showRailFields() {
    var card = selectedRail() === 'card';
    var cryptoFields = $('crypto-fields');
    var cardFields = $('card-fields');
    var emailField = $('email-field');
    if (cryptoFields) cryptoFields.hidden = card;
    if (cardFields) cardFields.hidden = !card;
    if (emailField) emailField.hidden = !(card || D.ask_email);
  }

  function prepareChoice() {
    var asset = field('asset');
    if (asset && checkout && checkout.crypto && optionsFor(checkout.crypto.asset).length > 0) {
      asset.value = checkout.crypto.asset;
      fillNetworks(checkout.crypto.asset, checkout.crypto.network);
    }
  }

  /** After a new checkout: it is the one on screen, and the URL resumes it on reload. @param {Checkout} c */
  function remember(c) {
    var resume = pageUrl + '?s=' + encodeURIComponent(c.id);
    try { window.history.replaceState(null, '', resume); } catch (e) { /* ignore */ }
    if (D.source !== 'link') return;
    // a link's page serves each payment the link makes: its receipt and its way back name this checkout
    var receipt = $('receipt-link');
    if (receipt) receipt.setAttribute('href', pageUrl + '/receipt?s=' + encodeURIComponent(c.id));
    ['resume-link', 'resume-link-canceled'].forEach(function (id) {
      var back = $(id);
      if (back) back.setAttribute('href', resume);
    });
  }

  /** @param {Checkout} c @param {string | null} replaced */
  function opened(c, replaced) {
    if (!replaced || c.id !== replaced) clockOffset = Date.parse(c.created_at) - Date.now();
    // on a link's page the checkout may have made a new payment (the first, or after a canceled one)
    if (payment.id !== c.payment_id) { payment.id = c.payment_id; payment.status = 'pending'; }
    choosing = false;
    pollDelay = POLL_MIN;
    remember(c);
    update(c);
  }

  /**
   * @param {Record<string, string>} body @param {HTMLElement | null} button @param {ParentNode} root @param {HTMLElement | null} slot
   */
  function openCheckout(body, button, root, slot) {
    clearErrors(root);
    busy(button, true);
    var replaced = body.replaces || null;
    return call('POST', '/checkouts', body, true).then(
      function (c) { busy(button, false); opened(c, replaced); },
      function (error) { busy(button, false); showError(root, error, slot); learnFromError(error); }
    );
  }

  /** A new checkout replaces the one on screen when that one is a customer's own quote (never a remainder). */
  function replacing() {
    return checkout && !checkout.remainder ? checkout.id : null;
  }

  var form = $('choose-form');
  if (form) {
    var chooseForm = form;
    all('input[name="rail"]', chooseForm).forEach(function (radio) { radio.addEventListener('change', showRailFields); });
    var assetSelect = field('asset');
    if (assetSelect) {
      var coin = assetSelect;
      coin.addEventListener('change', function () { fillNetworks(coin.value, null); });
    }
    chooseForm.addEventListener('submit', function (event) {
      event.preventDefault();
      clearErrors(chooseForm);
      /** @type {Record<string, string>} */
      var body = {};
      body[codeField] = D.code;
      var rail = selectedRail();
      var emailInput = field('email');
      var email = emailInput && (rail === 'card' || D.ask_email) ? emailInput.value.trim() : '';
      if (rail === 'card') {
        body.rail = 'card';
        var countryInput = field('country');
        var country = countryInput ? countryInput.value.trim().toUpperCase() : '';
        if (!/^[A-Z]{2}$/.test(country)) {
          showError(chooseForm, { code: 'invalid_request', message: country ? 'Enter your country as two letters, like US or DE.' : 'Enter your country (two letters, like US or DE): it decides how your card can be charged.', field: 'country' });
          return;
        }
        body.country = country; // required for cards: it decides the card routes
      } else {
        var asset = field('asset');
        var network = field('network');
        if (!asset || !network) { var slot = $('choose-error'); if (slot) slot.textContent = 'No coin is available for this payment right now.'; return; }
        body.asset = asset.value;
        body.network = network.value;
      }
      if (email) body.email = email;
      var replaces = replacing();
      if (replaces) body.replaces = replaces;
      openCheckout(body, $('choose-submit'), chooseForm, $('choose-error'));
    });
    showRailFields();
  }

  onClick('new-quote', function (newQuoteButton) {
    if (!checkout || !checkout.crypto) return;
    var section = $('view-expired');
    if (!section) return;
    /** @type {Record<string, string>} */
    var again = { asset: checkout.crypto.asset, network: checkout.crypto.network, replaces: checkout.id };
    again[codeField] = D.code;
    openCheckout(again, newQuoteButton, section, $('expired-error'));
  });

  function startChoosing() {
    choosing = true;
    render();
    var heading = $('choose-title');
    if (heading) heading.focus();
  }

  onClick('change-coin', startChoosing);
  all('[data-action="choose"]').forEach(function (button) { button.addEventListener('click', startChoosing); });

  // ------------------------------------------------------------------ actions on the checkout

  /** @param {HTMLElement} button @returns {HTMLElement | null} */
  function sectionError(button) {
    var section = button.closest('section');
    return section ? section.querySelector('.form-error') : null;
  }

  /** @param {HTMLElement} button @returns {ParentNode} */
  function sectionOf(button) { return button.closest('section') || document; }

  /**
   * A click on each `selector` button POSTs `path` of the checkout with `body(button)`: the error of its section cleared, the
   * button busy; `done` takes the checkout answered (and frees the button), an error shows in the section.
   * @param {string} selector @param {string} path @param {(button: HTMLElement) => object | undefined} body
   * @param {(c: Checkout, button: HTMLElement) => void} done
   */
  function onCheckoutPost(selector, path, body, done) {
    all(selector).forEach(function (button) {
      button.addEventListener('click', function () {
        if (!checkout) return;
        var slot = sectionError(button);
        if (slot) slot.textContent = '';
        busy(button, true);
        call('POST', '/checkouts/' + encodeURIComponent(checkout.id) + path, body(button)).then(
          function (c) { done(c, button); },
          function (error) { busy(button, false); showError(sectionOf(button), error, slot); }
        );
      });
    });
  }

  onCheckoutPost('[data-action="cancel"]', '/cancel', function () { return undefined; }, function (c, button) {
    var back = payment.cancel_url && /^https?:\/\//.test(payment.cancel_url) ? payment.cancel_url : null;
    if (back) { window.location.assign(back); return; }
    busy(button, false);
    update(c);
  });

  onCheckoutPost('[data-simulate]', '/mark-sent', function (button) { return { simulate: button.getAttribute('data-simulate') }; }, function (c, button) {
    busy(button, false);
    pollDelay = POLL_MIN;
    update(c);
  });

  all('.claim-form').forEach(function (claimForm) {
    claimForm.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!checkout) return;
      clearErrors(claimForm);
      /** @type {HTMLInputElement | null} */
      var hashInput = claimForm.querySelector('[name="tx_hash"]');
      /** @type {HTMLInputElement | null} */
      var emailInput = claimForm.querySelector('[name="email"]');
      var hash = hashInput ? hashInput.value.trim() : '';
      var email = emailInput ? emailInput.value.trim() : '';
      if (!hash) { showError(claimForm, { code: 'invalid_request', message: 'Enter the transaction hash of your transfer.', field: 'tx_hash' }); return; }
      /** @type {Record<string, string>} */
      var body = { tx_hash: hash };
      if (email) body.email = email;
      /** @type {HTMLElement | null} */
      var button = claimForm.querySelector('button[type="submit"]');
      busy(button, true);
      call('POST', '/checkouts/' + encodeURIComponent(checkout.id) + '/claim', body).then(
        function (c) { busy(button, false); claimed = true; update(c); },
        function (error) { busy(button, false); showError(claimForm, error); }
      );
    });
  });

  /** @param {string | null} what */
  function copy(what) {
    var c = checkout && checkout.crypto;
    var feedback = $('copy-feedback');
    if (!c || !feedback) return;
    var out = feedback;
    var value = what === 'address' ? c.address : what === 'remaining' ? c.remaining_amount || '' : c.amount;
    var label = what === 'address' ? 'Address' : 'Amount';
    var done = function () { out.textContent = label + ' copied.'; };
    var failed = function () { out.textContent = 'Copying did not work here: select the ' + label.toLowerCase() + ' and copy it.'; };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(value).then(done, failed);
    else failed();
  }
  all('[data-copy]').forEach(function (button) {
    button.addEventListener('click', function () { copy(button.getAttribute('data-copy')); });
  });

  // ------------------------------------------------------------------ card

  onClick('card-pay', function (cardButton) {
    if (!checkout || !checkout.card) return;
    var slot = $('card-error');
    if (slot) slot.textContent = '';
    busy(cardButton, true);
    call('POST', '/checkouts/' + encodeURIComponent(checkout.id) + '/card-attempts', { route: checkout.card.route }, true).then(
      function (c) {
        var attempt = c.card && c.card.attempt;
        var url = webUrl(attempt && attempt.secure_url);
        if (url) { window.location.assign(url); return; }
        busy(cardButton, false);
        update(c);
      },
      function (error) { busy(cardButton, false); showError($('view-card') || document, error, slot); learnFromError(error); refresh(); }
    );
  });

  /** A processor's page address, only when it is a web address (http or https). @param {string | null | undefined} value */
  function webUrl(value) {
    if (!value) return null;
    try {
      var url = new URL(value, window.location.href);
      return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
    } catch (e) {
      return null;
    }
  }

  /** After a refused card attempt (stale_route, route_in_progress, ...): show where the checkout stands now. */
  function refresh() {
    if (!checkout) return;
    var asked = checkout;
    call('GET', '/checkouts/' + encodeURIComponent(asked.id)).then(
      function (c) { if (checkout === asked) update(c); },
      function () { /* the error already shown stands */ }
    );
  }

  /* Back from the processor's page: ?s=<checkout>&attempt=<attempt>. */
  function confirmReturn() {
    var params = new URLSearchParams(window.location.search);
    var attempt = params.get('attempt');
    if (!attempt || !checkout || checkout.rail !== 'card' || checkout.id !== params.get('s')) return false;
    var returned = checkout;
    remember(returned); // drop the attempt from the address: a reload does not confirm again
    setStatus('Checking your card payment\u2026');
    call('POST', '/checkouts/' + encodeURIComponent(returned.id) + '/card-attempts/' + encodeURIComponent(attempt) + '/confirm').then(
      function (c) { update(c); },
      function (error) { render(); showError($('view-card') || document, error, $('card-error')); }
    );
    return true;
  }

  if (!confirmReturn()) render();
})();
