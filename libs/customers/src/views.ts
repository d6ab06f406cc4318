/**
 * The customer object (spec §2, `kind` = `customer`; decision 0029) as GET /customers/{id}
 * returns it. `name` is null when the business never gave one (a customer known only from a
 * payment's e-mail); `note` is "" when none. Money in `stats` is integers in minor units.
 */
export interface CustomerView {
  kind: 'customer';
  id: string;
  name: string | null;
  email: string;
  blocked: boolean;
  note: string;
  stats: CustomerStatsView;
  created_at: string;
  updated_at: string;
}

export interface CustomerStatsView {
  payments_count: number;
  incomplete_count: number;
  volume: { amount: number; currency: string | null };
  average: { amount: number; currency: string | null };
  last_payment_at: string | null;
  preferred_rail: string | null;
}

/** The stats columns of a `customers` row (bigint money as the driver gives it, or as a decimal string). */
export interface CustomerStatsColumns {
  payments_count: number;
  incomplete_count: number;
  stats_currency: string | null;
  volume: string | number;
  average: string | number;
  last_payment_at: Date | string | null;
  preferred_rail: string | null;
}

/** What customerView renders: a customer's fields and its stats columns. */
export interface CustomerViewRow extends CustomerStatsColumns {
  id: string;
  email: string;
  name: string | null;
  note: string;
  blocked: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A `customers` row as the queries select it. */
export interface CustomerRow extends CustomerViewRow {
  business_id: string;
  mode: string;
  origin: string;
}

const iso = (value: Date | string): string => new Date(value).toISOString();

/**
 * The customer object, for GET /customers/{id}, the lists and search, and the data of the
 * `customer.*` API events (whose source renders its own view's columns through it).
 */
export function customerView(row: CustomerViewRow): CustomerView {
  return {
    kind: 'customer',
    id: row.id,
    name: row.name,
    email: row.email,
    blocked: row.blocked,
    note: row.note,
    stats: {
      payments_count: Number(row.payments_count),
      incomplete_count: Number(row.incomplete_count),
      volume: { amount: Number(row.volume), currency: row.stats_currency },
      average: { amount: Number(row.average), currency: row.stats_currency },
      last_payment_at: row.last_payment_at === null ? null : iso(row.last_payment_at),
      preferred_rail: row.preferred_rail,
    },
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
