import type { SchemaObject } from '@nestjs/swagger';

/** OpenAPI schemas of the payment routes' objects (spec §2), as the read models render them. */

const timestamp: SchemaObject = { type: 'string', format: 'date-time' };
const nullable = (schema: SchemaObject): SchemaObject => ({ ...schema, nullable: true });
const str: SchemaObject = { type: 'string' };
const int: SchemaObject = { type: 'integer' };
const decimal: SchemaObject = { type: 'string', description: 'Decimal amount in the coin, no more decimals than the coin has.', example: '100.5' };

const REPORTING: SchemaObject = {
  type: 'object',
  description: 'What the business receives, in minor units of `currency`: net = amount − fee − transaction_fee.',
  required: ['currency', 'amount', 'fee', 'transaction_fee', 'customer_fee', 'net'],
  properties: { currency: str, amount: int, fee: int, transaction_fee: int, customer_fee: int, net: int },
};

const BREAKDOWN: SchemaObject = {
  type: 'object',
  required: ['currency', 'price', 'processing_fee', 'network_fee', 'total'],
  properties: { currency: str, price: int, processing_fee: nullable(int), network_fee: nullable(int), total: int },
};

const TIMELINE_ENTRY: SchemaObject = {
  type: 'object',
  required: ['type', 'created_at', 'data'],
  properties: {
    type: { type: 'string', example: 'confirmation', description: 'created, method_selected, detected, confirmation, underpaid, expired, succeeded, remainder_requested, claimed, failed, remainder_paid, canceled' },
    created_at: timestamp,
    data: { type: 'object', nullable: true },
  },
};

export const PAYMENT_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'A payment (spec §2) with its timeline, oldest first.',
  required: ['kind', 'id', 'status', 'amount', 'currency', 'events'],
  properties: {
    kind: { type: 'string', enum: ['payment'] },
    id: { type: 'string', example: 'pmt_…' },
    status: { type: 'string', enum: ['pending', 'underpaid', 'needs_review', 'succeeded', 'failed', 'canceled'] },
    amount: { ...int, description: 'Price in minor units.' },
    currency: { type: 'string', example: 'USD' },
    fee_payer: { type: 'string', enum: ['business', 'customer'] },
    customer_fee: int,
    amount_received: { ...int, description: 'Minor units of `currency` received.' },
    reporting: REPORTING,
    fee_rate_bps: int,
    method: nullable({
      type: 'object',
      properties: {
        rail: { type: 'string', enum: ['crypto'] },
        asset: str,
        network: str,
        amount: decimal,
        expected_amount: decimal,
        overpaid_amount: nullable(decimal),
        from_address: nullable(str),
        tx_hash: nullable(str),
        explorer_url: nullable(str),
      },
    }),
    settlement: nullable({
      type: 'object',
      properties: { destination: { type: 'string', enum: ['wallet'] }, asset: str, network: str, amount: decimal, wallet_id: nullable(str), address: nullable(str), tx_hash: str, explorer_url: nullable(str) },
    }),
    customer_id: nullable({ type: 'string', example: 'cst_…' }),
    link_id: nullable(str),
    url: nullable({ type: 'string', description: 'The hosted checkout page: CHECKOUT_BASE_URL/<payment code>.' }),
    reference: nullable(str),
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
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
    events: { type: 'array', items: TIMELINE_ENTRY },
  },
};

export const CHECKOUT_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'A checkout (spec §2). `email`, `reporting` and `fee_rate_bps` only with the owning business’s secret key.',
  required: ['kind', 'id', 'status', 'rail', 'payment_id', 'amount', 'currency', 'breakdown', 'confirmations', 'remainder'],
  properties: {
    kind: { type: 'string', enum: ['checkout'] },
    id: { type: 'string', example: 'chk_…' },
    status: { type: 'string', enum: ['open', 'awaiting_customer', 'confirming', 'completed', 'needs_review', 'expired', 'canceled', 'failed'] },
    rail: { type: 'string', enum: ['crypto', 'card'] },
    link_id: nullable(str),
    payment_id: str,
    amount: int,
    currency: str,
    breakdown: BREAKDOWN,
    crypto: nullable({
      type: 'object',
      properties: {
        asset: str,
        network: str,
        amount: decimal,
        address: str,
        payment_uri: { type: 'string', description: 'BIP-21 (bitcoin), EIP-681 (EVM) or Solana Pay URI for wallets.' },
        rate: { type: 'object', properties: { amount: int, currency: str } },
        received_amount: decimal,
        remaining_amount: nullable(decimal),
        remaining_payment_uri: nullable(str),
        overpaid_amount: nullable(decimal),
        detected_network: nullable(str),
        tx_hash: nullable(str),
        explorer_url: nullable(str),
      },
    }),
    card: { type: 'object', nullable: true },
    confirmations: { type: 'object', properties: { current: int, required: int } },
    remainder: { type: 'boolean' },
    canceled_by: nullable({ type: 'string', enum: ['customer'] }),
    replaced_by: nullable(str),
    failure_code: nullable(str),
    review_reason: nullable({ type: 'string', enum: ['claimed', 'wrong_network', 'late'] }),
    success_url: nullable(str),
    expires_at: nullable({ ...timestamp, description: 'End of the quote.' }),
    sent_at: nullable(timestamp),
    created_at: timestamp,
    updated_at: timestamp,
    email: nullable(str),
    reporting: nullable(REPORTING),
    fee_rate_bps: nullable(int),
  },
};

export const RECEIPT_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'A public receipt (spec §2): nothing the business pays, no deposit, no customer details.',
  required: ['kind', 'id', 'status', 'amount', 'currency'],
  properties: {
    kind: { type: 'string', enum: ['receipt'] },
    id: { type: 'string', example: 'pmt_…' },
    status: str,
    description: nullable(str),
    reference: nullable(str),
    amount: int,
    currency: str,
    breakdown: BREAKDOWN,
    rail: nullable(str),
    crypto: nullable({ type: 'object', properties: { asset: str, network: str, amount: decimal } }),
    received_amount: nullable(decimal),
    overpaid_amount: nullable(decimal),
    failure_code: nullable(str),
    transaction: nullable({ type: 'object', properties: { hash: str, url: nullable(str) } }),
    transfers: { type: 'array', items: { type: 'object', properties: { hash: str, network: str, url: nullable(str), amount: decimal } } },
    business: nullable({ type: 'object', properties: { name: str, support_email: nullable(str) } }),
    back_url: nullable(str),
    paid_at: nullable(timestamp),
    created_at: timestamp,
  },
};

export const REMAINDER_REQUEST_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['kind', 'payment', 'checkout', 'url'],
  properties: {
    kind: { type: 'string', enum: ['remainder_request'] },
    payment: PAYMENT_SCHEMA,
    checkout: CHECKOUT_SCHEMA,
    url: nullable({ type: 'string', description: 'The hosted checkout page, ending with s=<checkout_id>.' }),
  },
};

export const TEST_CLOCK_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['kind', 'business_id', 'now', 'offset_seconds', 'timers_fired'],
  properties: {
    kind: { type: 'string', enum: ['test_clock'] },
    business_id: str,
    now: { ...timestamp, description: "The business's own time." },
    offset_seconds: { ...int, description: 'How far it runs ahead of wall time.' },
    timers_fired: int,
    advanced_seconds: int,
  },
};
