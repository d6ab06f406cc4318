import type { WriteMeta } from '@lib/eventstore';

/** A link as POST /checkouts needs it (decision 0030). */
export interface LinkForCheckout {
  id: string;
  businessId: string;
  mode: 'live' | 'test';
  name: string;
  description: string | null;
  amount: number;
  currency: string;
  /** null: the business's checkout settings. */
  rails: readonly string[] | null;
  assets: readonly { asset: string; network: string }[] | null;
  successUrl: string | null;
  askEmail: boolean;
  metadata: Record<string, string>;
}

/**
 * What payments ask of the links capability (decision 0030), which implements it (libs/links
 * `LinkDirectory`, provided under LINK_GATE): payments never import it.
 */
export interface LinkGate {
  /** The active link with this code; 404 link_not_found (none, deleted, disabled) or 410 link_archived. */
  byCode(code: string): Promise<LinkForCheckout>;
  /** Records a payment the link made, on the link's stream: refused as byCode when the link is no longer active. */
  recordPayment(linkId: string, paymentId: string, meta: WriteMeta): Promise<void>;
  /** Whether the link still has a checkout page (active): an archived, disabled or deleted link has none (request-remainder). */
  hasCheckoutPage(linkId: string): Promise<boolean>;
  /** The link's page (its `url`: `{checkout_url}/<link code>`), where its payments' checkouts are resumed with `?s=`; null for a deleted link. */
  pageUrl(linkId: string): Promise<string | null>;
}

export const LINK_GATE = Symbol('LINK_GATE');
