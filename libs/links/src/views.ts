import type { LinkFields } from './events';

/**
 * The link object (spec §2 "Fields of the link object: not shown"; decision 0030) as GET
 * /links/{id} returns it. `url` is `{CHECKOUT_BASE_URL}/{code}`: the hosted checkout page of the
 * link. Money is integers in minor units.
 */
export interface LinkView extends LinkFields {
  kind: 'link';
  id: string;
  code: string;
  url: string;
  status: 'active' | 'archived' | 'disabled';
  payments_count: number;
  created_at: string;
  updated_at: string;
}

/** A `links` row as the queries select it: what LinkCreated/LinkUpdated record (`amount` may come back as a string: bigint). */
export interface LinkRow extends Omit<LinkFields, 'amount'> {
  id: string;
  business_id: string;
  mode: string;
  code: string;
  status: string;
  amount: string | number;
  payments_count: number;
  created_at: Date | string;
  updated_at: Date | string;
}

const iso = (value: Date | string): string => new Date(value).toISOString();

export function linkUrl(checkoutBaseUrl: string, code: string): string {
  return `${checkoutBaseUrl.replace(/\/+$/, '')}/${code}`;
}

export function linkView(row: LinkRow, checkoutBaseUrl: string): LinkView {
  return {
    kind: 'link',
    id: row.id,
    code: row.code,
    url: linkUrl(checkoutBaseUrl, row.code),
    name: row.name,
    description: row.description,
    amount: Number(row.amount),
    currency: row.currency,
    rails: row.rails,
    assets: row.assets,
    success_url: row.success_url,
    ask_email: row.ask_email,
    metadata: row.metadata,
    status: row.status as LinkView['status'],
    payments_count: Number(row.payments_count),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
