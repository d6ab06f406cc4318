import { FeePayer, MoneyError, buildBreakdown, validateCardPrice } from '@lib/money';
import { AssetCode, NetworkId, defaultRegistry } from '@lib/chains';
import { FIXED_RATES } from '@lib/rates';

/** One coin on one network the customer may choose on the page. */
export interface PayOption {
  asset: AssetCode;
  network: NetworkId;
  asset_name: string;
  network_name: string;
}

/** What decides the page's choice of coin and network (the same facts POST /checkouts checks). */
export interface AvailabilityInput {
  simulated: boolean;
  /** The payment's currency: a coin is offered only when it can be quoted in it. */
  currency: string;
  /** Networks the business's wallet receives on (none without a wallet). */
  receiving: ReadonlySet<NetworkId>;
  /** Networks a chain watcher watches in this deployment: a live business takes transfers only there. */
  liveNetworks: readonly NetworkId[];
  /** Networks the operator paused (`network:<id>`). */
  paused: ReadonlySet<NetworkId>;
  /** The pairs the business's checkout settings accept; null (or absent): every pair (decision 0028). */
  accepted?: readonly { asset: string; network: string }[] | null;
}

/**
 * The coin and network pairs the page offers (pure), in the registry's order: every pair the
 * registry carries, on a network the business's wallet receives on (POST /checkouts: 409
 * not_accepting otherwise), watched when the business is live (not_accepting), not paused
 * (503 temporarily_unavailable), quotable in the payment's currency (asset_unavailable), and
 * among the pairs the business's checkout settings accept (asset_unavailable; decision 0028).
 * Quotability is the table's: the live source covers the same pairs, and whether it has a fresh
 * price right now is the API's answer to give (503, shown in words on the page).
 */
export function payOptions(input: AvailabilityInput, registry = defaultRegistry): PayOption[] {
  const quotable = FIXED_RATES[input.currency] ?? {};
  const options: PayOption[] = [];
  for (const asset of registry.assets()) {
    for (const network of asset.networks) {
      if (!input.receiving.has(network) || input.paused.has(network)) continue;
      if (!input.simulated && !input.liveNetworks.includes(network)) continue;
      if (quotable[asset.code] === undefined) continue;
      if (input.accepted && !input.accepted.some((a) => a.asset === asset.code && a.network === network)) continue;
      options.push({ asset: asset.code, network, asset_name: asset.name, network_name: registry.network(network).name });
    }
  }
  return options;
}

/** What decides which rails the page offers. */
export interface RailsInput {
  /** The rails the business's checkout settings accept, in their order. */
  accepted: readonly string[];
  /** A card processor takes this business's cards (CardRoutes.takesCards: a live business has none configured today). */
  takesCards: boolean;
  /** What the card would be charged is within the card price range (cardPriceAccepted); absent: not checked. */
  cardPrice?: boolean;
}

/** The rails the page offers (pure): those the settings accept, card only when a processor takes the business's cards and the price is a card price. */
export function payRails(input: RailsInput): ('crypto' | 'card')[] {
  return (['crypto', 'card'] as const).filter((rail) => input.accepted.includes(rail) && (rail !== 'card' || (input.takesCards && input.cardPrice !== false)));
}

/**
 * Whether a card could be charged this price (pure): the card breakdown's total (the price, plus
 * the processing fee when the customer pays it) within §8's card price, $5 to $10,000 in the
 * payment's currency — the rule POST /checkouts applies (400 amount_out_of_range), so the page
 * does not offer Card for a price the API would refuse.
 */
export function cardPriceAccepted(price: { currency: string; amount: number; feePayer: FeePayer; feeRateBps: number }): boolean {
  try {
    const { total } = buildBreakdown({ currency: price.currency, priceMinor: price.amount, rail: 'card', feePayer: price.feePayer, feeRateBps: price.feeRateBps });
    validateCardPrice(total, price.currency);
    return true;
  } catch (error) {
    if (error instanceof MoneyError) return false;
    throw error;
  }
}
