import { AssetCode, NetworkId, defaultRegistry } from '@lib/chains';
import { DomainError } from './domain-error';

/**
 * A business's checkout settings (issue 19 B13, decision 0028): what its customers see and how
 * they may pay. Recorded whole on each change (CheckoutSettingsChanged), so the stream's last
 * change is the settings; a business that never changed them has DEFAULT_CHECKOUT_SETTINGS.
 *
 * - `display_name`, `support_email`: shown on the checkout page and the public receipt instead of
 *   the business's own name and support address; null shows the business's own.
 * - `ask_email`: POST /checkouts without an e-mail (and none known from the payment) → 400
 *   email_required.
 * - `rails`: the rails customers may choose (a rail left out → 400 rail_unavailable).
 * - `assets`: the coins and networks customers may pay with (another pair → 400
 *   asset_unavailable); null accepts every pair the service carries, new ones included.
 */
export type CheckoutRail = 'crypto' | 'card';
export const CHECKOUT_RAILS: readonly CheckoutRail[] = ['crypto', 'card'];

export interface AcceptedAsset {
  asset: AssetCode;
  network: NetworkId;
}

/**
 * The coin-and-network pairs a request names (a business's checkout settings, a link's `assets`),
 * each one the service carries; another is 400 invalid_request naming it (`assets[i]`). The DTO
 * has checked each name alone. Answered in the canonical form both keep: unique pairs in the
 * registry's order (a pair named twice, or the same pairs in another order, are the same list).
 */
export function carriedAssets(assets: readonly { asset: string; network: string }[]): AcceptedAsset[] {
  assets.forEach(({ asset, network }, i) => {
    if (!defaultRegistry.supports(asset as AssetCode, network as NetworkId)) throw new DomainError('invalid_request', `${network} does not carry ${asset}.`, `assets[${i}]`);
  });
  return canonicalAssets(assets as readonly AcceptedAsset[]);
}

/** Rails in their canonical order (CHECKOUT_RAILS'): the same rails sent in another order are the same list. */
export function canonicalRails(rails: readonly string[]): CheckoutRail[] {
  return CHECKOUT_RAILS.filter((rail) => rails.includes(rail));
}

export interface CheckoutSettings {
  display_name: string | null;
  support_email: string | null;
  ask_email: boolean;
  rails: CheckoutRail[];
  assets: AcceptedAsset[] | null;
}

export const DEFAULT_CHECKOUT_SETTINGS: Readonly<CheckoutSettings> = Object.freeze<CheckoutSettings>({
  display_name: null,
  support_email: null,
  ask_email: false,
  rails: ['crypto', 'card'],
  assets: null,
});

/** A change: the fields sent, each replacing the current value (PATCH semantics). */
export type CheckoutSettingsChange = Partial<CheckoutSettings>;

/** The settings after a change: fields left out keep their value; rails and assets kept in a canonical order. */
export function applySettingsChange(current: CheckoutSettings, change: CheckoutSettingsChange): CheckoutSettings {
  const next: CheckoutSettings = { ...current };
  if (change.display_name !== undefined) next.display_name = change.display_name;
  if (change.support_email !== undefined) next.support_email = change.support_email;
  if (change.ask_email !== undefined) next.ask_email = change.ask_email;
  if (change.rails !== undefined) next.rails = canonicalRails(change.rails);
  if (change.assets !== undefined) next.assets = change.assets === null ? null : canonicalAssets(change.assets);
  return next;
}

/** Unique pairs in the registry's order (asset, then network). */
function canonicalAssets(assets: readonly AcceptedAsset[]): AcceptedAsset[] {
  return allAssetPairs().filter((pair) => assets.some((a) => a.asset === pair.asset && a.network === pair.network));
}

/** Every coin and network the service carries, in the registry's order. */
export function allAssetPairs(): AcceptedAsset[] {
  return defaultRegistry.assets().flatMap((asset) => defaultRegistry.networksFor(asset.code).map((network) => ({ asset: asset.code, network })));
}

export function sameSettings(a: CheckoutSettings, b: CheckoutSettings): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether customers may pay with `asset` on `network` under these settings. */
export function acceptsAsset(settings: Pick<CheckoutSettings, 'assets'>, asset: string, network: string): boolean {
  return settings.assets === null || settings.assets.some((a) => a.asset === asset && a.network === network);
}

/** The checkout settings object (GET/PATCH /checkout-settings). `assets` lists the accepted pairs (every one the service carries when the business has not narrowed them). */
export interface CheckoutSettingsView {
  kind: 'checkout_settings';
  business_id: string;
  display_name: string | null;
  support_email: string | null;
  ask_email: boolean;
  rails: CheckoutRail[];
  assets: AcceptedAsset[];
  /** True while the business accepts every pair the service carries (new ones included). */
  all_assets: boolean;
  updated_at: string | null;
}

export function checkoutSettingsView(businessId: string, settings: CheckoutSettings, updatedAt: Date | string | null): CheckoutSettingsView {
  return {
    kind: 'checkout_settings',
    business_id: businessId,
    display_name: settings.display_name,
    support_email: settings.support_email,
    ask_email: settings.ask_email,
    rails: [...settings.rails],
    assets: settings.assets === null ? allAssetPairs() : settings.assets.map((a) => ({ ...a })),
    all_assets: settings.assets === null,
    updated_at: updatedAt === null ? null : new Date(updatedAt).toISOString(),
  };
}
