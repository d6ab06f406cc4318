import { PaymentDomainError } from './errors';

/**
 * What a business lets its customers do at checkout (its checkout settings, decision 0028), as
 * POST /checkouts reads them: ask for an e-mail, the rails, the coins and networks. Pure.
 */
export interface CheckoutRules {
  ask_email: boolean;
  rails: readonly string[];
  /** null: every pair the service carries. */
  assets: readonly { asset: string; network: string }[] | null;
  /** Set by narrowByLink when the payment link asks for the e-mail: email_required then says the link asks, not the business. */
  email_asked_by_link?: true;
}

/** A business that never changed its settings: no e-mail asked, both rails, every pair. */
export const DEFAULT_CHECKOUT_RULES: Readonly<CheckoutRules> = Object.freeze({ ask_email: false, rails: ['crypto', 'card'], assets: null });

/** What a payment link says about the rules (decision 0030): null rails or assets follow the business's settings. */
export interface LinkRules {
  rails: readonly string[] | null;
  assets: readonly { asset: string; network: string }[] | null;
  askEmail: boolean;
}

/** The business's rules narrowed by a link's (pure): rails and pairs both accept; an e-mail when either asks (the link's own ask noted). */
export function narrowByLink(rules: CheckoutRules, link: LinkRules): CheckoutRules {
  const linkAssets = link.assets;
  return {
    ask_email: rules.ask_email || link.askEmail,
    rails: link.rails === null ? rules.rails : rules.rails.filter((r) => link.rails!.includes(r)),
    assets: linkAssets === null ? rules.assets : (rules.assets ?? linkAssets).filter((a) => linkAssets.some((l) => l.asset === a.asset && l.network === a.network)),
    ...(link.askEmail ? { email_asked_by_link: true as const } : {}),
  };
}

/** The rail is one the business accepts (400 rail_unavailable). */
export function assertRailAccepted(rules: CheckoutRules, rail: string): void {
  if (!rules.rails.includes(rail)) throw new PaymentDomainError('rail_unavailable', `This business does not accept ${rail === 'card' ? 'cards' : 'crypto'}.`, 'rail');
}

/** The coin on the network is one the business accepts (400 asset_unavailable). */
export function assertAssetAccepted(rules: CheckoutRules, asset: string, network: string): void {
  if (rules.assets !== null && !rules.assets.some((a) => a.asset === asset && a.network === network)) {
    throw new PaymentDomainError('asset_unavailable', `This business does not accept ${asset} on ${network}.`, 'asset');
  }
}

/**
 * A business (or a payment link) that asks for the customer's e-mail gets one: sent now or known
 * from the payment (400 email_required, naming the link when the link asks).
 */
export function assertEmailGiven(rules: CheckoutRules, email: string | null | undefined): void {
  if (rules.ask_email && (email === null || email === undefined || email === '')) {
    throw new PaymentDomainError('email_required', rules.email_asked_by_link ? 'This payment link asks for your e-mail address.' : 'This business asks for your e-mail address.', 'email');
  }
}
