import { Decider, DomainRefusal, decideBy, ignoreUnknown, repeatedCreation } from '@lib/domain';
import { MoneyError, validateCardPrice } from '@lib/money';
import { LinkEvent, LinkFields, asLinkEvent } from './events';

/**
 * The payment link's pure decider over one `link-<lnk_id>` stream (decision 0030), with
 * given/when/then tests in test/links/link.decider.spec.ts.
 *
 * Statuses: `active` (customers open checkouts on it), `archived` by the business (POST
 * /checkouts → 410 link_archived; restorable), `disabled` by the service (an operator; POST
 * /checkouts → 404 link_not_found, "no active link with the code"; never restored: 409
 * link_disabled). Deleted: gone (404 not_found / link_not_found); only a link without payments
 * can be deleted (409 link_has_payments). Each payment a link makes is recorded on its stream
 * first (RecordLinkPayment), so "has payments" is decided on the same stream as a delete.
 */

export type LinkStatus = 'active' | 'archived' | 'disabled';

export interface LinkRecord extends LinkFields {
  id: string;
  businessId: string;
  mode: 'live' | 'test';
  code: string;
  status: LinkStatus;
  payments: readonly string[];
}

export interface LinkState {
  link: LinkRecord | null;
  deleted: boolean;
}

export interface CreateLink {
  type: 'CreateLink';
  linkId: string;
  businessId: string;
  mode: 'live' | 'test';
  code: string;
  fields: LinkFields;
}

/** The fields to change (left out: unchanged). */
export interface UpdateLink {
  type: 'UpdateLink';
  businessId: string;
  change: Partial<LinkFields>;
}

export type LinkAction = { type: 'ArchiveLink'; businessId: string } | { type: 'RestoreLink'; businessId: string } | { type: 'DeleteLink'; businessId: string };

/** An operator disables a link (the CLI); no business scope. */
export interface DisableLink {
  type: 'DisableLink';
  reason: string;
}

/** A checkout on the link made a payment (POST /checkouts with link_code). */
export interface RecordLinkPayment {
  type: 'RecordLinkPayment';
  paymentId: string;
}

export type LinkCommand = CreateLink | UpdateLink | LinkAction | DisableLink | RecordLinkPayment;

const notFound = () => new DomainRefusal('not_found', 'No link with this id.');
const disabled = () => new DomainRefusal('link_disabled', 'The service disabled this link; it cannot be changed or restored.');

/** The business's own link, or not_found (none, deleted, another business's). */
function owned(state: LinkState, businessId: string): LinkRecord {
  if (state.link === null || state.deleted || state.link.businessId !== businessId) throw notFound();
  return state.link;
}

/**
 * A link whose only rail is card takes only a price a card can be charged (§8 card price, $5 to
 * $10,000 scaled to the currency: `validateCardPrice`, the bound POST /checkouts applies), else 400
 * amount_out_of_range on `amount` (§7). A link's payments are made with the business paying the
 * fee, so what a card is charged on it is exactly the price: out of that range no checkout on the
 * link could succeed (card: amount_out_of_range; crypto: rail_unavailable). A link that also takes
 * crypto, or leaves its rails to the business (`rails: null`), is not refused: crypto can pay it.
 */
export function checkCardOnlyPrice(fields: Pick<LinkFields, 'amount' | 'currency' | 'rails'>): void {
  const cardOnly = fields.rails !== null && fields.rails.length > 0 && fields.rails.every((rail) => rail === 'card');
  if (!cardOnly) return;
  try {
    validateCardPrice(fields.amount, fields.currency, 'amount');
  } catch (error) {
    if (error instanceof MoneyError && error.code === 'amount_out_of_range') {
      throw new DomainRefusal('amount_out_of_range', `A card-only link's ${error.message} (what a card is charged on it); add crypto to its rails to take another price.`, 'amount');
    }
    if (error instanceof MoneyError) throw new DomainRefusal('invalid_request', error.message, error.field ?? 'amount');
    throw error;
  }
}

export const LINK_FIELDS: readonly (keyof LinkFields)[] = ['name', 'description', 'amount', 'currency', 'rails', 'assets', 'success_url', 'ask_email', 'metadata'];

export function fieldsOf(link: LinkFields): LinkFields {
  return { name: link.name, description: link.description, amount: link.amount, currency: link.currency, rails: link.rails, assets: link.assets, success_url: link.success_url, ask_email: link.ask_email, metadata: link.metadata };
}

export const linkDecider: Decider<LinkCommand, LinkEvent, LinkState> = {
  initialState: { link: null, deleted: false },
  decide: (command, state) =>
    decideBy<LinkCommand, LinkState, void, LinkEvent>(
      {
        CreateLink(c, s) {
          if (repeatedCreation('link', s.link?.id ?? null, c.linkId)) return [];
          checkCardOnlyPrice(c.fields);
          return [{ type: 'LinkCreated', data: { link_id: c.linkId, business_id: c.businessId, mode: c.mode, code: c.code, ...fieldsOf(c.fields) } }];
        },
        UpdateLink(c, s) {
          const link = owned(s, c.businessId);
          if (link.status === 'disabled') throw disabled();
          const before = fieldsOf(link);
          const after = fieldsOf({ ...before, ...Object.fromEntries(Object.entries(c.change).filter(([, v]) => v !== undefined)) } as LinkFields);
          // the price rule when the price or the rails change (a link stored before keeps its other changes)
          if (after.amount !== before.amount || after.currency !== before.currency || JSON.stringify(after.rails) !== JSON.stringify(before.rails)) checkCardOnlyPrice(after);
          return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ type: 'LinkUpdated', data: after }];
        },
        ArchiveLink(c, s) {
          const link = owned(s, c.businessId);
          if (link.status === 'disabled') throw disabled();
          return link.status === 'archived' ? [] : [{ type: 'LinkArchived', data: { link_id: link.id } }];
        },
        RestoreLink(c, s) {
          const link = owned(s, c.businessId);
          if (link.status === 'disabled') throw disabled();
          return link.status === 'active' ? [] : [{ type: 'LinkRestored', data: { link_id: link.id } }];
        },
        DeleteLink(c, s) {
          const link = owned(s, c.businessId);
          if (link.payments.length > 0) throw new DomainRefusal('link_has_payments', 'A link with payments cannot be deleted; archive it.');
          return [{ type: 'LinkDeleted', data: { link_id: link.id } }];
        },
        DisableLink(c, s) {
          if (s.link === null || s.deleted) throw notFound();
          return s.link.status === 'disabled' ? [] : [{ type: 'LinkDisabled', data: { link_id: s.link.id, reason: c.reason } }];
        },
        RecordLinkPayment(c, s) {
          if (s.link === null || s.deleted || s.link.status === 'disabled') throw new DomainRefusal('link_not_found', 'No active link with this code.', 'link_code');
          if (s.link.payments.includes(c.paymentId)) return [];
          if (s.link.status === 'archived') throw new DomainRefusal('link_archived', 'This link is archived.', 'link_code');
          return [{ type: 'LinkPaymentRecorded', data: { link_id: s.link.id, payment_id: c.paymentId } }];
        },
      },
      command,
      state,
      undefined,
    ),
  evolve(state, event) {
    const link = state.link;
    switch (event.type) {
      case 'LinkCreated': {
        const d = event.data;
        return { link: { id: d.link_id, businessId: d.business_id, mode: d.mode, code: d.code, status: 'active', payments: [], ...fieldsOf(d) }, deleted: false };
      }
      case 'LinkUpdated':
        return link === null ? state : { ...state, link: { ...link, ...fieldsOf(event.data) } };
      case 'LinkArchived':
        return link === null ? state : { ...state, link: { ...link, status: 'archived' } };
      case 'LinkRestored':
        return link === null ? state : { ...state, link: { ...link, status: 'active' } };
      case 'LinkDisabled':
        return link === null ? state : { ...state, link: { ...link, status: 'disabled' } };
      case 'LinkDeleted':
        return { ...state, deleted: true };
      case 'LinkPaymentRecorded':
        return link === null ? state : { ...state, link: { ...link, payments: [...link.payments, event.data.payment_id] } };
      default:
        return ignoreUnknown(event, state);
    }
  },
  fromStored: asLinkEvent,
};
