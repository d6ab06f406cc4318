/**
 * The checkout page's one script, served at {base}/assets/checkout.js (script-src 'self'; no
 * inline script). Plain ES2017 for every current browser, no framework, no bundler. Kept as text
 * here so the build needs no asset step; test/checkout-page checks it parses and drives it in
 * Chromium. It never uses template literals (this file holds it in one).
 */
export const CHECKOUT_SCRIPT = String.raw`/* The checkout page's script (decision 0027). It reads the page's data block, then talks only to
   the public API: POST /checkouts, GET /checkouts/{id}, POST /checkouts/{id}/cancel | claim |
   mark-sent, and the card attempt routes. Status moves by short polling of GET /checkouts/{id}. */
(function () {
  'use strict';
  var dataBlock = document.getElementById('checkout-data');
  if (!dataBlock) return;
  var D = JSON.parse(dataBlock.textContent);
  var pageUrl = D.base + '/' + encodeURIComponent(D.code);
  var payment = D.payment;
  var checkout = D.checkout;
  var clockOffset = Date.parse(D.now) - Date.now(); // the business's clock (a test clock may run ahead)
  var view = null;
  var choosing = false;
  var claimed = false;
  var pollTimer = null;
  var pollDelay = 2000;
  var countdownTimer = null;
  var lastStatusText = '';

  var POLL_MIN = 2000;
  var POLL_WAITING_MAX = 5000;
  var POLL_ERROR_MAX = 30000;

  function $(id) { return document.getElementById(id); }
  function all(selector, root) { return Array.prototype.slice.call((root || document).querySelectorAll(selector)); }

  // ------------------------------------------------------------------ API

  function randomKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }

  /* One Idempotency-Key per attempt (route and body), kept in sessionStorage until the service
     gives a definite answer: a retry after a lost answer or a 5xx is the same request. */
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

  function call(method, path, body, idempotent) {
    var headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    var key = idempotent ? idempotencyKey(path, body) : null;
    if (key) headers['idempotency-key'] = key.value;
    return fetch(D.api + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' }).then(
      function (response) {
        return response.text().then(function (raw) {
          var json = null;
          try { json = raw ? JSON.parse(raw) : null; } catch (e) { json = null; }
          var error = json && json.error ? json.error : null;
          var definite = response.status < 500 && response.status !== 429 && !(error && error.code === 'idempotency_key_in_use');
          if (key && definite) { try { window.sessionStorage.removeItem(key.slot); } catch (e) { /* nothing kept */ } }
          if (response.ok && json) return json.data;
          var failure = error || { code: 'http_' + response.status, message: 'The service answered ' + response.status + '.', field: null };
          failure.status = response.status;
          failure.retryAfter = response.headers.get('retry-after');
          throw failure;
        });
      },
      function () {
        throw { code: 'network', message: 'The service could not be reached. Check your connection and try again.', field: null };
      }
    );
  }

  function coinName(c) { return c && c.crypto ? c.crypto.asset : ''; }
  function networkName(id) { return (D.names.networks && D.names.networks[id]) || id || ''; }

  var WORDS = {
    network: 'The service could not be reached. Check your connection and try again.',
    rate_limited: function (e) { return 'Too many attempts from your connection. Wait ' + (e.retryAfter || 'a few') + ' seconds, then try again.'; },
    temporarily_unavailable: 'Paying this way is paused for a moment. Try again shortly, or choose another coin or network.',
    upstream_unavailable: 'The service could not get a price right now. Try again in a moment.',
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
    email_required: 'Enter your e-mail address.',
    rail_unavailable: 'This business does not take this way of paying. Choose another.',
    amount_out_of_range: 'Cards can pay between $5 and $10,000. Choose crypto for this amount.',
    customer_blocked: 'This business cannot take a payment from this e-mail address.',
    wrong_rail: 'That does not apply to this way of paying.',
    route_in_progress: 'Your payment on the card page may still go through. Wait a moment before trying again.',
    no_route: 'No other way to pay by card is available. Choose crypto instead.',
    stale_route: 'The card payment page was out of date. Try again.',
    checkout_not_retryable: 'This card checkout cannot be tried again. Choose another way to pay.',
    checkout_not_awaiting: 'This checkout is not waiting for a card payment.',
    not_found: 'This checkout could not be found. Reload the page.'
  };

  function words(error) {
    var entry = WORDS[error.code];
    if (typeof entry === 'function') return entry(error);
    if (entry) return entry;
    if (error.code === 'invalid_request' && error.message) return error.message;
    return error.message || 'Something went wrong. Try again.';
  }

  function clearErrors(root) {
    all('.field-error, .form-error', root).forEach(function (el) { el.textContent = ''; });
    all('[aria-invalid]', root).forEach(function (el) { el.removeAttribute('aria-invalid'); });
  }

  /* An API error in words, next to the field it names when the form has one, else for the form. */
  function showError(root, error, formSlot) {
    var message = words(error);
    var slot = null;
    if (error.field) slot = root.querySelector('[data-error="' + error.field + '"]') || (root.querySelector('#' + error.field + '-error'));
    if (slot) {
      slot.textContent = message;
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

  function busy(button, on) {
    if (!button) return;
    button.disabled = on;
    if (on) button.setAttribute('aria-busy', 'true'); else button.removeAttribute('aria-busy');
  }

  // ------------------------------------------------------------------ state

  function viewOf(p, c) {
    if (p.status === 'succeeded' || (c && c.status === 'completed')) return 'succeeded';
    if (p.status === 'needs_review' || (c && c.status === 'needs_review')) return 'review';
    if (p.status === 'canceled' || p.status === 'failed') return 'closed';
    if (choosing || !c) return 'choose';
    if (c.rail === 'card') return c.status === 'canceled' ? 'canceled' : 'card';
    switch (c.status) {
      case 'open': return 'pay';
      case 'confirming': return 'confirming';
      case 'awaiting_customer': return 'underpaid';
      case 'expired': return p.status === 'underpaid' ? 'remainder-wait' : 'expired';
      case 'canceled': return 'canceled';
      default: return 'choose';
    }
  }

  var STATUS_TEXT = {
    choose: 'Choose how to pay.',
    pay: 'Waiting for your transfer.',
    confirming: 'Transfer detected. Waiting for confirmations.',
    underpaid: 'Part of the payment arrived. The rest is still due.',
    'remainder-wait': 'Part of the payment arrived. The quote has ended.',
    expired: 'The quote has ended.',
    canceled: 'Checkout canceled.',
    review: 'Under review.',
    succeeded: 'Payment received.',
    closed: 'This payment is closed.',
    card: 'Ready to pay by card.'
  };

  function isZero(amount) { return !amount || /^0*(\.0*)?$/.test(amount); }

  /* What a checkout says about its payment (the page reads no payment after the first render). */
  function learnFrom(c) {
    if (c.status === 'completed') payment.status = 'succeeded';
    else if (c.status === 'needs_review') payment.status = 'needs_review';
    else if (c.status === 'awaiting_customer' || (c.status === 'expired' && c.crypto && !isZero(c.crypto.received_amount))) payment.status = 'underpaid';
  }

  function setText(name, value) {
    all('[data-f="' + name + '"]').forEach(function (el) {
      var next = value === null || value === undefined ? '' : String(value);
      if (el.textContent !== next) el.textContent = next;
    });
  }

  function setStatus(message) {
    if (message === lastStatusText) return;
    lastStatusText = message;
    $('status').textContent = message;
  }

  function qrSource(c, part) {
    return pageUrl + '/qr.svg?s=' + encodeURIComponent(c.id) + (part === 'remaining' ? '&part=remaining' : '');
  }

  function fillCrypto(c) {
    var cr = c.crypto;
    if (!cr) return;
    setText('crypto-amount', cr.amount);
    setText('asset', cr.asset);
    setText('network-name', networkName(cr.network));
    setText('address', cr.address);
    setText('received', cr.received_amount);
    setText('remaining', cr.remaining_amount || '0');
    all('img[data-qr="quote"]').forEach(function (img) {
      var src = qrSource(c, 'quote');
      if (img.getAttribute('src') !== src) img.setAttribute('src', src);
      img.setAttribute('alt', 'QR code of this payment request: ' + cr.amount + ' ' + cr.asset + ' to the address below, for a wallet app to scan');
    });
    all('img[data-qr="remaining"]').forEach(function (img) {
      if (!cr.remaining_payment_uri) { img.hidden = true; return; }
      img.hidden = false;
      var src = qrSource(c, 'remaining');
      if (img.getAttribute('src') !== src) img.setAttribute('src', src);
    });
    all('[data-tx]').forEach(function (el) {
      el.hidden = !cr.tx_hash;
      var link = el.querySelector('[data-f="tx-link"]');
      var plain = el.querySelector('[data-f="tx-hash"]');
      var url = cr.explorer_url && /^https?:\/\//.test(cr.explorer_url) ? cr.explorer_url : null;
      link.hidden = !url;
      plain.hidden = !!url;
      if (url) { link.setAttribute('href', url); link.textContent = cr.tx_hash; } else { plain.textContent = cr.tx_hash || ''; }
    });
  }

  function fillCard(c) {
    var card = c.card;
    var message = $('card-message');
    var pay = $('card-pay');
    if (!card || !message || !pay) return;
    var attempt = card.attempt;
    var last = all('[data-f="card-last"]')[0];
    if (last) {
      last.hidden = !card.last4;
      last.textContent = card.last4 ? (card.brand ? card.brand + ' ' : 'Card ') + 'ending ' + card.last4 : '';
    }
    pay.hidden = false;
    pay.textContent = 'Pay by card';
    if (!attempt) {
      message.textContent = 'You will be taken to the card processor\u2019s secure page, then back here.';
    } else if (attempt.status === 'pending') {
      message.textContent = 'Waiting for the card processor\u2019s answer\u2026';
      pay.hidden = true;
    } else if (attempt.status === 'declined' || attempt.status === 'timed_out') {
      var why = attempt.status === 'timed_out' ? 'The card payment page timed out.' : 'Your card was declined' + (c.failure_code || card.decline_code ? ' (' + (c.failure_code || card.decline_code) + ').' : '.');
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

  function fillTimes(c) {
    setText('conf-current', c.confirmations.current);
    setText('conf-required', c.confirmations.required);
    var progress = $('conf-progress');
    if (progress) { progress.max = Math.max(1, c.confirmations.required); progress.value = c.confirmations.current; }
    all('time[data-f="expires-at"]').forEach(function (el) {
      if (!c.expires_at) return;
      var at = new Date(Date.parse(c.expires_at) - clockOffset);
      el.setAttribute('datetime', c.expires_at);
      el.textContent = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    });
  }

  function render() {
    var next = viewOf(payment, checkout);
    if (checkout) {
      fillCrypto(checkout);
      fillTimes(checkout);
      if (checkout.rail === 'card') fillCard(checkout);
      var title = $('pay-title');
      if (title) title.textContent = checkout.remainder ? 'Send the rest' : 'Send exactly';
      var change = $('change-coin');
      if (change) change.hidden = !!checkout.remainder;
    }
    all('[data-claimed]').forEach(function (el) { el.hidden = !claimed; });
    if (next !== view) {
      var focusLost = !document.activeElement || document.activeElement === document.body;
      all('#checkout > section').forEach(function (section) {
        var shown = section.id === 'view-' + next;
        if (!shown && section.contains(document.activeElement)) focusLost = true;
        section.hidden = !shown;
      });
      $('checkout').setAttribute('data-view', next);
      if (next === 'choose') prepareChoice();
      var previous = view;
      view = next;
      if (previous !== null && focusLost) {
        var heading = document.querySelector('#view-' + next + ' h2');
        if (heading) heading.focus();
      }
    }
    var status = STATUS_TEXT[view];
    if (view === 'confirming' && checkout) status = 'Transfer detected. Confirmations: ' + checkout.confirmations.current + ' of ' + checkout.confirmations.required + '.';
    setStatus(status);
    tickCountdown();
    schedulePoll();
  }

  function update(c) {
    if (checkout && c.id !== checkout.id) { claimed = false; }
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
    pollTimer = null;
    if (!polling()) return;
    var delay = document.hidden ? Math.max(pollDelay, 10000) : pollDelay;
    pollTimer = window.setTimeout(poll, delay);
  }

  function poll() {
    var asked = checkout;
    call('GET', '/checkouts/' + encodeURIComponent(asked.id)).then(
      function (c) {
        if (checkout !== asked) return; // the customer moved on meanwhile
        var changed = c.updated_at !== asked.updated_at || c.status !== asked.status;
        // waiting for the customer, the page asks less often over time; once something moves, every 2 s
        pollDelay = changed || c.status === 'confirming' ? POLL_MIN : Math.min(Math.round(pollDelay * 1.1), POLL_WAITING_MAX);
        if (c.replaced_by && c.status !== 'completed' && c.status !== 'confirming') return follow(c.replaced_by, c);
        update(c);
      },
      function () {
        pollDelay = Math.min(pollDelay * 2, POLL_ERROR_MAX);
        schedulePoll();
      }
    );
  }

  /* Another tab chose another coin: show the checkout that replaced this one. */
  function follow(id, fallback) {
    call('GET', '/checkouts/' + encodeURIComponent(id)).then(
      function (c) { remember(c); update(c); },
      function () { update(fallback); }
    );
  }

  document.addEventListener('visibilitychange', function () {
    if (!document.hidden && polling()) { pollDelay = POLL_MIN; window.clearTimeout(pollTimer); poll(); }
  });

  // ------------------------------------------------------------------ countdown

  function pad(n) { return (n < 10 ? '0' : '') + n; }

  function tickCountdown() {
    window.clearTimeout(countdownTimer);
    if (!checkout || !checkout.expires_at || (view !== 'pay' && view !== 'underpaid')) return;
    var left = Math.floor((Date.parse(checkout.expires_at) - (Date.now() + clockOffset)) / 1000);
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

  function optionsFor(asset) { return D.options.filter(function (o) { return o.asset === asset; }); }

  function fillNetworks(asset, selected) {
    var select = $('network');
    if (!select) return;
    while (select.firstChild) select.removeChild(select.firstChild);
    optionsFor(asset).forEach(function (o) {
      var option = document.createElement('option');
      option.value = o.network;
      option.textContent = o.network_name;
      if (o.network === selected) option.selected = true;
      select.appendChild(option);
    });
  }

  function selectedRail() {
    var checked = document.querySelector('input[name="rail"]:checked');
    return checked ? checked.value : 'crypto';
  }

  function showRailFields() {
    var card = selectedRail() === 'card';
    var cryptoFields = $('crypto-fields');
    var cardFields = $('card-fields');
    if (cryptoFields) cryptoFields.hidden = card;
    if (cardFields) cardFields.hidden = !card;
  }

  function prepareChoice() {
    var asset = $('asset');
    if (asset && checkout && checkout.crypto && optionsFor(checkout.crypto.asset).length > 0) {
      asset.value = checkout.crypto.asset;
      fillNetworks(checkout.crypto.asset, checkout.crypto.network);
    }
  }

  /* After a new checkout: it is the one on screen, and the URL resumes it on reload. */
  function remember(c) {
    try { window.history.replaceState(null, '', pageUrl + '?s=' + encodeURIComponent(c.id)); } catch (e) { /* ignore */ }
  }

  function opened(c, replaced) {
    if (!replaced || c.id !== replaced) clockOffset = Date.parse(c.created_at) - Date.now();
    choosing = false;
    pollDelay = POLL_MIN;
    remember(c);
    update(c);
  }

  function openCheckout(body, button, root, slot) {
    clearErrors(root);
    busy(button, true);
    var replaced = body.replaces || null;
    return call('POST', '/checkouts', body, true).then(
      function (c) { busy(button, false); opened(c, replaced); },
      function (error) { busy(button, false); showError(root, error, slot); }
    );
  }

  /* A new checkout replaces the one on screen when that one is a customer's own quote (never a remainder). */
  function replacing() {
    return checkout && !checkout.remainder ? { replaces: checkout.id } : {};
  }

  function assign(target, source) { Object.keys(source).forEach(function (k) { target[k] = source[k]; }); return target; }

  var form = $('choose-form');
  if (form) {
    all('input[name="rail"]', form).forEach(function (radio) { radio.addEventListener('change', showRailFields); });
    var assetSelect = $('asset');
    if (assetSelect) assetSelect.addEventListener('change', function () { fillNetworks(assetSelect.value, null); });
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var body = { payment_code: D.code };
      if (selectedRail() === 'card') {
        body.rail = 'card';
        var email = $('email').value.trim();
        var country = $('country').value.trim().toUpperCase();
        if (email) body.email = email;
        if (country) body.country = country;
      } else {
        if (!$('asset') || !$('network')) { $('choose-error').textContent = 'No coin is available for this payment right now.'; return; }
        body.asset = $('asset').value;
        body.network = $('network').value;
      }
      openCheckout(assign(body, replacing()), $('choose-submit'), form, $('choose-error'));
    });
    showRailFields();
  }

  var newQuote = $('new-quote');
  if (newQuote) newQuote.addEventListener('click', function () {
    if (!checkout || !checkout.crypto) return;
    openCheckout({ payment_code: D.code, asset: checkout.crypto.asset, network: checkout.crypto.network, replaces: checkout.id }, newQuote, $('view-expired'), $('expired-error'));
  });

  function startChoosing() {
    choosing = true;
    render();
    var heading = $('choose-title');
    if (heading) heading.focus();
  }

  var change = $('change-coin');
  if (change) change.addEventListener('click', startChoosing);
  all('[data-action="choose"]').forEach(function (button) { button.addEventListener('click', startChoosing); });

  // ------------------------------------------------------------------ actions on the checkout

  function sectionError(button) {
    var section = button.closest('section');
    return section ? section.querySelector('.form-error') : null;
  }

  all('[data-action="cancel"]').forEach(function (button) {
    button.addEventListener('click', function () {
      if (!checkout) return;
      var slot = sectionError(button);
      if (slot) slot.textContent = '';
      busy(button, true);
      call('POST', '/checkouts/' + encodeURIComponent(checkout.id) + '/cancel').then(
        function (c) {
          var back = payment.cancel_url && /^https?:\/\//.test(payment.cancel_url) ? payment.cancel_url : null;
          if (back) { window.location.assign(back); return; }
          busy(button, false);
          update(c);
        },
        function (error) { busy(button, false); showError(button.closest('section'), error, slot); }
      );
    });
  });

  all('[data-simulate]').forEach(function (button) {
    button.addEventListener('click', function () {
      if (!checkout) return;
      var slot = sectionError(button);
      if (slot) slot.textContent = '';
      busy(button, true);
      call('POST', '/checkouts/' + encodeURIComponent(checkout.id) + '/mark-sent', { simulate: button.getAttribute('data-simulate') }).then(
        function (c) { busy(button, false); pollDelay = POLL_MIN; update(c); },
        function (error) { busy(button, false); showError(button.closest('section'), error, slot); }
      );
    });
  });

  all('.claim-form').forEach(function (claimForm) {
    claimForm.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!checkout) return;
      clearErrors(claimForm);
      var hash = claimForm.querySelector('[name="tx_hash"]').value.trim();
      var email = claimForm.querySelector('[name="email"]').value.trim();
      if (!hash) { showError(claimForm, { code: 'invalid_request', message: 'Enter the transaction hash of your transfer.', field: 'tx_hash' }); return; }
      var body = { tx_hash: hash };
      if (email) body.email = email;
      var button = claimForm.querySelector('button[type="submit"]');
      busy(button, true);
      call('POST', '/checkouts/' + encodeURIComponent(checkout.id) + '/claim', body).then(
        function (c) { busy(button, false); claimed = true; update(c); },
        function (error) { busy(button, false); showError(claimForm, error); }
      );
    });
  });

  function copy(what) {
    var c = checkout && checkout.crypto;
    if (!c) return;
    var value = what === 'address' ? c.address : what === 'remaining' ? c.remaining_amount : c.amount;
    var label = what === 'address' ? 'Address' : 'Amount';
    var done = function () { $('copy-feedback').textContent = label + ' copied.'; };
    var failed = function () { $('copy-feedback').textContent = 'Copying did not work here: select the ' + label.toLowerCase() + ' and copy it.'; };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(value).then(done, failed);
    else failed();
  }
  all('[data-copy]').forEach(function (button) {
    button.addEventListener('click', function () { copy(button.getAttribute('data-copy')); });
  });

  // ------------------------------------------------------------------ card

  var cardPay = $('card-pay');
  if (cardPay) cardPay.addEventListener('click', function () {
    if (!checkout || !checkout.card) return;
    var slot = $('card-error');
    slot.textContent = '';
    busy(cardPay, true);
    call('POST', '/checkouts/' + encodeURIComponent(checkout.id) + '/card-attempts', { route: checkout.card.route }, true).then(
      function (c) {
        var attempt = c.card && c.card.attempt;
        var url = attempt && attempt.secure_url;
        if (url && /^https?:\/\//.test(new URL(url, window.location.href).href)) { window.location.assign(new URL(url, window.location.href).href); return; }
        busy(cardPay, false);
        update(c);
      },
      function (error) { busy(cardPay, false); showError($('view-card'), error, slot); }
    );
  });

  /* Back from the processor's page: ?s=<checkout>&attempt=<attempt>. */
  function confirmReturn() {
    var params = new URLSearchParams(window.location.search);
    var attempt = params.get('attempt');
    if (!attempt || !checkout || checkout.rail !== 'card' || checkout.id !== params.get('s')) return false;
    remember(checkout); // drop the attempt from the address: a reload does not confirm again
    setStatus('Checking your card payment\u2026');
    call('POST', '/checkouts/' + encodeURIComponent(checkout.id) + '/card-attempts/' + encodeURIComponent(attempt) + '/confirm').then(
      function (c) { update(c); },
      function (error) { render(); showError($('view-card'), error, $('card-error')); }
    );
    return true;
  }

  if (!confirmReturn()) render();
})();
`;
