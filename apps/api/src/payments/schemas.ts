import type { SchemaObject } from '@nestjs/swagger';
import { ASSET_CODES, NETWORK_IDS } from '@lib/chains';
import { int, nullable, object, ref, str, timestamp } from '../platform/resource-schemas';

/**
 * OpenAPI schemas of the payment routes' objects (spec §2), as the read models render them.
 * Each resource is a named component (PAYMENT_COMPONENTS, collected by platform/openapi.ts);
 * routes and other schemas refer to it by $ref through the exported constants (PAYMENT_SCHEMA, …).
 * Objects are closed (`additionalProperties: false`): the contract tests (test/support/contract.ts)
 * then fail on a field the server sends that the document does not name.
 */

export const PAYMENT_SCHEMA = ref('Payment');
export const CHECKOUT_SCHEMA = ref('Checkout');
export const RECEIPT_SCHEMA = ref('Receipt');
export const REMAINDER_REQUEST_SCHEMA = ref('RemainderRequest');
export const TEST_CLOCK_SCHEMA = ref('TestClock');

const asset: SchemaObject = { type: 'string', enum: [...ASSET_CODES] };
const network: SchemaObject = { type: 'string', enum: [...NETWORK_IDS] };
const decimal: SchemaObject = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'Decimal amount in the coin, no more decimals than the coin has.', example: '100.5' };

const REPORTING = (extra: SchemaObject = {}) =>
  object({ currency: str, amount: int, fee: int, transaction_fee: int, customer_fee: int, net: int }, { description: 'What the business receives, in minor units of `currency`: net = amount − fee − transaction_fee.', ...extra });

const BREAKDOWN: SchemaObject = object({ currency: str, price: int, processing_fee: nullable(int), network_fee: nullable(int), total: int });
const RATE: SchemaObject = object(
  {
    amount: { ...int, description: 'Minor units of `currency` per one coin.' },
    currency: str,
    source: nullable({
      type: 'string',
      example: 'coinbase-exchange:BTC-USD',
      description: 'Where the rate came from: `fixed` (the table simulated businesses quote from) or the live source and its product (`coinbase-exchange:BTC-USD`); null on checkouts opened before it was recorded.',
    }),
    at: nullable({ ...timestamp, description: 'Time of the price the rate came from (for `fixed`, when the checkout was quoted); null on checkouts opened before it was recorded.' }),
  },
  { description: 'The exchange rate the quote locked.' },
);

export const PAYMENT_STATUSES = ['pending', 'underpaid', 'needs_review', 'succeeded', 'failed', 'canceled'];
export const CHECKOUT_STATUSES = ['open', 'awaiting_customer', 'confirming', 'completed', 'needs_review', 'expired', 'canceled', 'failed'];

const TIMELINE_ENTRY: SchemaObject = object({
  type: {
    type: 'string',
    example: 'confirmation',
    description: 'created, method_selected, detected, withdrawn (a chain reorganisation took the transfer away before it was final), confirmation, underpaid, expired, succeeded, remainder_requested, claimed, failed, remainder_paid, canceled, needs_review (the payment went to review: `reason` — `late`, `wrong_network`, `superseded_quote`, `paid_after_cancel`, `paid_after_close` — and its cause: `checkout_id`, `tx_hash` of the transfer or `attempt_id` of the card charge, the other null; a claim shows `claimed` instead), accepted (the business counted the payment: `counted_amount` as a decimal in the coin of the payment method, or in the currency of the payment for a card charge, and `actor`, who accepted it as `GET /events` names it: `kind`, `id`, `name`), card_charged (a card charged for review — e.g. on a page left open after the payment was paid another way: `checkout_id`, `attempt_id`, `amount` in minor units, `currency`, `review_reason`)',
  },
  created_at: timestamp,
  data: { type: 'object', additionalProperties: true, nullable: true, description: 'What the entry carries (null for created, expired, succeeded).' },
});

const PAYMENT: SchemaObject = object(
  {
    kind: { type: 'string', enum: ['payment'] },
    id: { type: 'string', example: 'pmt_…' },
    status: { type: 'string', enum: PAYMENT_STATUSES },
    amount: { ...int, description: 'Price in minor units.' },
    currency: { type: 'string', example: 'USD' },
    fee_payer: { type: 'string', enum: ['business', 'customer'] },
    customer_fee: int,
    amount_received: { ...int, description: 'Minor units of `currency` received.' },
    reporting: REPORTING(),
    fee_rate_bps: { ...int, description: 'Basis points.' },
    method: nullable(
      object(
        {
          rail: { type: 'string', enum: ['crypto', 'card'] },
          asset: nullable(asset),
          network: nullable(network),
          amount: nullable(decimal),
          expected_amount: nullable(decimal),
          overpaid_amount: nullable(decimal),
          from_address: nullable(str),
          tx_hash: nullable(str),
          explorer_url: nullable(str),
          card: nullable(
            object(
              { processor: str, brand: { type: 'string', example: 'visa' }, last4: { type: 'string', example: '4242' } },
              { description: 'The card charged (card methods, once charged); null on a crypto method.' },
            ),
          ),
        },
        { description: 'How the payment is paid. A card method has no coin, network or amounts (null).' },
      ),
    ),
    settlement: nullable(
      object({
        destination: { type: 'string', enum: ['wallet'] },
        asset,
        network,
        amount: decimal,
        wallet_id: nullable(str),
        address: nullable(str),
        tx_hash: str,
        explorer_url: nullable(str),
      }),
    ),
    customer_id: nullable({ type: 'string', example: 'cst_…' }),
    link_id: nullable(str),
    url: nullable({ type: 'string', description: 'The hosted checkout page: CHECKOUT_BASE_URL/<payment code>.' }),
    reference: nullable(str),
    metadata: { type: 'object', additionalProperties: { type: 'string' }, description: 'String keys to string values.' },
    success_url: nullable(str),
    cancel_url: nullable(str),
    expires_at: nullable(timestamp),
    canceled_at: nullable(timestamp),
    confirmed_at: nullable(timestamp),
    checkout_id: nullable(str),
    description: nullable(str),
    country: nullable(str),
    failure_code: nullable(str),
    failure_message: nullable(str),
    created_at: timestamp,
    updated_at: timestamp,
    events: { type: 'array', items: TIMELINE_ENTRY, description: 'The timeline, oldest first.' },
  },
  { description: 'A payment (spec §2) with its timeline, oldest first.' },
);

/** `email`, `reporting` and `fee_rate_bps` only with the owning business's secret key, or a dashboard session acting for it. */
const SECRET_CHECKOUT_FIELDS = ['email', 'reporting', 'fee_rate_bps'];
/** Who sees SECRET_CHECKOUT_FIELDS, as each field and the checkout say it. */
const ONLY_THE_OWNER = 'Only with the owning business’s secret key, or a dashboard session acting for it (Service-Business).';

const CHECKOUT: SchemaObject = object(
  {
    kind: { type: 'string', enum: ['checkout'] },
    id: { type: 'string', example: 'chk_…' },
    status: { type: 'string', enum: CHECKOUT_STATUSES },
    rail: { type: 'string', enum: ['crypto', 'card'] },
    link_id: nullable(str),
    payment_id: str,
    amount: int,
    currency: str,
    breakdown: BREAKDOWN,
    crypto: nullable(
      object({
        asset,
        network,
        amount: decimal,
        address: str,
        payment_uri: { type: 'string', description: 'BIP-21 (bitcoin), EIP-681 (EVM) or Solana Pay URI for wallets.' },
        rate: RATE,
        received_amount: decimal,
        remaining_amount: nullable(decimal),
        remaining_payment_uri: nullable(str),
        overpaid_amount: nullable(decimal),
        detected_network: nullable(network),
        tx_hash: nullable(str),
        explorer_url: nullable(str),
        pending_tx_hash: nullable({
          type: 'string',
          description:
            'A transaction to `address` seen in the network’s mempool before the quote ended and not mined yet (Bitcoin): the quote, and the payment’s expiry, are held for it (at most 24 hours); nothing is counted until it is mined (then `tx_hash` and status `confirming`). Null otherwise, and once the checkout no longer waits for money.',
        }),
      }),
    ),
    card: nullable(
      object(
        {
          route: { ...int, description: '1-based position of the route (card processor) the next or current attempt uses.' },
          routes: { ...int, description: 'How many routes this checkout may use.' },
          processor: { type: 'string', example: 'simulated_a', description: 'The processor of that route.' },
          attempt: nullable(
            object(
              {
                id: { type: 'string', example: 'att_…' },
                number: int,
                route: int,
                processor: str,
                status: { type: 'string', enum: ['pending', 'succeeded', 'declined', 'timed_out'] },
                secure_url: nullable({ type: 'string', description: 'The processor’s secure page; null once the attempt ended.' }),
                expires_at: timestamp,
                created_at: timestamp,
              },
              { description: 'The latest attempt.' },
            ),
          ),
          brand: nullable(str),
          last4: nullable(str),
          decline_code: nullable({ type: 'string', example: 'card_declined', description: 'The latest attempt’s decline: card_declined, insufficient_funds, expired_card, authentication_failed, do_not_retry.' }),
          retryable: { type: 'boolean', description: 'Whether another attempt can be started now (POST /checkouts/{id}/card-attempts).' },
        },
        { description: 'A card checkout’s routes and attempts (decision 0026); null for crypto checkouts.' },
      ),
    ),
    confirmations: object({ current: int, required: int }),
    remainder: { type: 'boolean', description: 'True when the checkout collects a remainder.' },
    canceled_by: nullable({ type: 'string', enum: ['customer'] }),
    replaced_by: nullable(str),
    failure_code: nullable(str),
    review_reason: nullable({
      type: 'string',
      enum: ['claimed', 'wrong_network', 'late', 'duplicate_payment', 'paid_after_cancel', 'paid_after_close'],
      description:
        'Why the checkout is, or was, under review: `duplicate_payment` when its transfer reached the payment while the payment already took another of its quotes’ money (a second payment; accepting the payment counts both, each at its own quote). It stays once the review ends: when the payment succeeds while the checkout is `needs_review`, the checkout leaves it — `completed` when the business accepted the payment with this checkout’s money or claim in it, `failed` with `failure_code` `payment_succeeded` when the payment was paid another way.',
    }),
    success_url: nullable(str),
    expires_at: nullable({ ...timestamp, description: 'End of the quote; on a card checkout, the end of the attempt in progress (null without one).' }),
    sent_at: nullable(timestamp),
    created_at: timestamp,
    updated_at: timestamp,
    email: nullable({ ...str, description: ONLY_THE_OWNER }),
    reporting: REPORTING({ nullable: true, description: ONLY_THE_OWNER }),
    fee_rate_bps: nullable({ ...int, description: ONLY_THE_OWNER }),
  },
  { description: 'A checkout (spec §2): one attempt to pay a payment. `email`, `reporting` and `fee_rate_bps` only with the owning business’s secret key, or a dashboard session acting for it (Service-Business).' },
  SECRET_CHECKOUT_FIELDS,
);

const RECEIPT: SchemaObject = object(
  {
    kind: { type: 'string', enum: ['receipt'] },
    id: { type: 'string', example: 'pmt_…', description: 'The payment id.' },
    status: { type: 'string', enum: PAYMENT_STATUSES },
    description: nullable(str),
    reference: nullable(str),
    amount: int,
    currency: str,
    breakdown: object({ currency: str, price: int, processing_fee: nullable(int), network_fee: { type: 'integer', nullable: true, description: 'Always null.' }, total: int }),
    rail: nullable({ type: 'string', enum: ['crypto', 'card'] }),
    crypto: nullable(object({ asset, network, amount: decimal })),
    received_amount: nullable({ ...decimal, description: 'What arrived, in the coin; for a card, what the card was charged, a decimal of `currency`. Null until something arrives.' }),
    overpaid_amount: nullable(decimal),
    failure_code: nullable(str),
    transaction: nullable(object({ hash: str, url: nullable(str) })),
    transfers: { type: 'array', items: object({ hash: str, network, asset: { ...nullable(asset), description: 'The coin `amount` is written in: the coin of the quote the transfer paid.' }, url: nullable(str), amount: decimal }) },
    business: object({ name: str, support_email: nullable(str) }),
    back_url: nullable(str),
    paid_at: nullable(timestamp),
    created_at: timestamp,
  },
  { description: 'A public receipt (spec §2): nothing the business pays, no deposit, no customer details.' },
);

const REMAINDER_REQUEST: SchemaObject = object(
  {
    kind: { type: 'string', enum: ['remainder_request'] },
    payment: PAYMENT_SCHEMA,
    checkout: CHECKOUT_SCHEMA,
    url: { type: 'string', description: 'The hosted checkout page, ending with s=<checkout_id>: the payment’s own page, or for a payment made by a link, the link’s page.' },
  },
  { description: 'The answer of POST /payments/{id}/request-remainder (spec §4).' },
);

const TEST_CLOCK: SchemaObject = object(
  {
    kind: { type: 'string', enum: ['test_clock'] },
    business_id: str,
    now: { ...timestamp, description: "The business's own time." },
    offset_seconds: { ...int, description: 'How far it runs ahead of wall time.' },
    timers_fired: int,
    advanced_seconds: { ...int, description: 'POST /test_clock/advance only.' },
  },
  { description: "A simulated business's test clock (decision 0010)." },
  ['advanced_seconds'],
);

/** The named components of the payment routes. */
export const PAYMENT_COMPONENTS: Record<string, SchemaObject> = {
  Payment: PAYMENT,
  Checkout: CHECKOUT,
  Receipt: RECEIPT,
  RemainderRequest: REMAINDER_REQUEST,
  TestClock: TEST_CLOCK,
};
