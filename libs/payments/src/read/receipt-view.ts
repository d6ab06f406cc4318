import { AssetCode, ChainRegistry, NetworkId, defaultRegistry } from '@lib/chains';
import { type PaymentStatus, fiatDecimal } from '../domain/payment.decider';
import { PaymentViewState, failureCodeOf, overpaidAmount, sentAmount, txExplorerUrl } from './payment-view';

/**
 * The public receipt (spec §2 Receipt), built from a payment's state and its business's public
 * details at read time. Public means: no fee the business pays (no reporting, no fee rate; the
 * breakdown's processing fee is the customer's own), no deposit address, no customer details
 * (no customer id or e-mail, no metadata, no sender address). A card receipt (decision 0026)
 * has no coin (`crypto` null), no transfers or transaction, and `received_amount` — what the
 * card was charged, a decimal of the currency — once the card was charged.
 */

export interface ReceiptBusiness {
  name: string;
  support_email: string | null;
  website: string | null;
}

export interface ReceiptView {
  kind: 'receipt';
  id: string;
  status: PaymentStatus;
  description: string | null;
  reference: string | null;
  amount: number;
  currency: string;
  breakdown: { currency: string; price: number; processing_fee: number | null; network_fee: null; total: number };
  rail: 'crypto' | 'card' | null;
  crypto: { asset: AssetCode; network: NetworkId; amount: string } | null;
  received_amount: string | null;
  overpaid_amount: string | null;
  failure_code: string | null;
  transaction: { hash: string; url: string | null } | null;
  /** Each transfer names its coin: a payment paid through two quotes can hold two (decision 0025 addendum). */
  transfers: { hash: string; network: NetworkId; asset: AssetCode | null; url: string | null; amount: string }[];
  business: { name: string; support_email: string | null };
  back_url: string | null;
  paid_at: string | null;
  created_at: string;
}

export function receiptView(state: PaymentViewState, business: ReceiptBusiness | null, registry: ChainRegistry = defaultRegistry): ReceiptView {
  const method = state.method;
  const first = state.transfers[0] ?? null;
  const customerPays = state.fee_payer === 'customer';
  const arrived = first !== null || state.status === 'succeeded';
  const card = method?.rail === 'card' ? method : null;
  const crypto = method?.rail === 'crypto' ? method : null;
  // A claim the business accepted with nothing seen on chain: the claimed transfer, counted at the
  // quoted amount (§3: "an accepted claim counts the full quoted amount as received"), is the
  // payment's one transfer. Before acceptance it is only the customer's word, and not listed.
  const claim = state.claim;
  const acceptedClaim =
    first === null && claim !== null && crypto !== null && state.status === 'succeeded'
      ? { hash: claim.tx_hash, network: claim.network, asset: crypto.asset, url: txExplorerUrl(registry, claim.network, claim.tx_hash), amount: sentAmount(state, registry) }
      : null;
  return {
    kind: 'receipt',
    id: state.id,
    status: state.status,
    description: state.description,
    reference: state.reference,
    amount: state.amount,
    currency: state.currency,
    breakdown: {
      currency: state.currency,
      price: state.amount,
      processing_fee: customerPays ? state.customer_fee : null,
      network_fee: null,
      total: state.amount + (customerPays ? state.customer_fee : 0),
    },
    rail: method?.rail ?? null,
    // The quote; its network is where the first transfer arrived when that differs (wrong_network).
    crypto: crypto ? { asset: crypto.asset, network: first?.network ?? crypto.network, amount: crypto.expected_amount } : null,
    received_amount: card ? (state.received_amount ?? (card.card !== null ? fiatDecimal(card.quoted_amount, state.currency) : null)) : arrived ? sentAmount(state, registry) : null,
    overpaid_amount: overpaidAmount(state, registry),
    failure_code: failureCodeOf(state),
    transaction: first ? { hash: first.tx_hash, url: txExplorerUrl(registry, first.network, first.tx_hash) } : acceptedClaim ? { hash: acceptedClaim.hash, url: acceptedClaim.url } : null,
    transfers: acceptedClaim
      ? [acceptedClaim]
      : state.transfers.map((t) => ({ hash: t.tx_hash, network: t.network, asset: t.asset ?? crypto?.asset ?? null, url: txExplorerUrl(registry, t.network, t.tx_hash), amount: t.amount })),
    business: { name: business?.name ?? '', support_email: business?.support_email ?? null },
    back_url: state.success_url ?? business?.website ?? null,
    paid_at: state.confirmed_at,
    created_at: state.created_at,
  };
}
