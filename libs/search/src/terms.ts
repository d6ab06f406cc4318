import { FIAT } from '@lib/money';

/**
 * What a search document holds (decision 0031) and how a query is compared with it. Pure: the
 * projector computes the indexed columns from a document's parts with `indexedColumns`, the read
 * model normalises the query with `normaliseQuery`; both lower-case with the same JavaScript rule.
 */

/** The kinds GET /search returns, in the order ties are broken (spec §4: links, customers, payments). */
export const SEARCH_KINDS = ['link', 'customer', 'payment'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export function isSearchKind(value: string): value is SearchKind {
  return (SEARCH_KINDS as readonly string[]).includes(value);
}

/** An amount of money as its object states it: integer minor units of `currency`. */
export interface DocumentAmount {
  minor: number;
  currency: string;
}

/**
 * A document's searchable parts (the `parts` column, jsonb): what its event source recorded. The
 * indexed columns are a function of these (`indexedColumns`), so one source's change (a customer
 * renamed) can be carried into other documents (its payments) and the columns recomputed.
 */
export interface DocumentParts {
  /** Matched exactly (first rank) and anywhere: ids, checkout ids, codes. */
  ids: string[];
  /** Matched exactly and anywhere: e-mail addresses. */
  emails: string[];
  /** Matched exactly and anywhere: transaction hashes. */
  hashes: string[];
  /** Matched exactly and anywhere: addresses (a payment's senders). */
  addresses: string[];
  /** Matched by word prefix and anywhere, by field (names, descriptions, references, metadata values). */
  words: Record<string, string[]>;
  /** Matched in the forms people type (`amountForms`). */
  amount: DocumentAmount | null;
  /** A payment's customer as the customer object shows it now (its name and e-mail are the payment's too). */
  customer: { name: string | null; email: string } | null;
}

export const emptyParts = (): DocumentParts => ({ ids: [], emails: [], hashes: [], addresses: [], words: {}, amount: null, customer: null });

/** The one lower-casing rule of documents and queries. */
export const fold = (text: string): string => text.trim().toLowerCase();

/**
 * The forms an amount is found by: its minor units (`2500`) and its major units with the
 * trailing zeros of the fraction dropped (`25`, `25.5`); a typed `25.00` or `25.50` is brought to
 * that form by `amountKey`. A zero-decimal currency (JPY) has the one form.
 */
export function amountForms(amount: DocumentAmount): string[] {
  const exponent = (FIAT as Record<string, number>)[amount.currency] ?? 0;
  const minor = BigInt(amount.minor);
  const forms = new Set<string>([minor.toString()]);
  if (exponent > 0) {
    const scale = 10n ** BigInt(exponent);
    const whole = minor / scale;
    const fraction = (minor % scale).toString().padStart(exponent, '0').replace(/0+$/, '');
    forms.add(fraction === '' ? whole.toString() : `${whole}.${fraction}`);
  }
  return [...forms];
}

/** The currencies a sign names: `$` any dollar (USD, CAD, AUD), the others one currency each. */
const SIGN_CURRENCIES: Record<string, readonly string[]> = { $: ['USD', 'CAD', 'AUD'], '€': ['EUR'], '£': ['GBP'], '¥': ['JPY'] };

/**
 * A query as an amount: its key (`25.00` → `25`, `25.50` → `25.5`, `$1,250` → `1250`) and the
 * currencies it names by sign or code (null: none named, any currency matches; decision 0031,
 * addendum 2026-11-29) — or null when it is not a number, or names currencies that exclude each
 * other (`€25 USD`). Thousands separators are ignored.
 */
export function amountQuery(query: string): { key: string; currencies: string[] | null } | null {
  let currencies: string[] | null = null;
  const narrow = (named: readonly string[]) => {
    currencies = currencies === null ? [...named] : currencies.filter((c) => named.includes(c));
  };
  let bare = query.trim();
  // a sign before the number (`€25`) or after it (`25 €`, `25€`, as many European amounts are written)
  for (const at of [/^([$€£¥])\s*/, /\s*([$€£¥])$/]) {
    const sign = at.exec(bare);
    if (!sign) continue;
    narrow(SIGN_CURRENCIES[sign[1]]);
    bare = bare.slice(0, sign.index) + bare.slice(sign.index + sign[0].length);
  }
  for (const code of [/\s*(usd|eur|gbp|cad|aud|chf|jpy)$/i, /^(usd|eur|gbp|cad|aud|chf|jpy)\s*/i]) {
    const named = code.exec(bare);
    if (!named) continue;
    narrow([named[1].toUpperCase()]);
    bare = bare.slice(0, named.index) + bare.slice(named.index + named[0].length);
  }
  // a decimal comma with cents (`25,00`, `1.234,50`): the European way of writing the same amount
  const decimalComma = /^(\d{1,3}(?:\.\d{3})*|\d+),(\d{2})$/.exec(bare);
  if (decimalComma) bare = `${decimalComma[1].replace(/\./g, '')}.${decimalComma[2]}`;
  bare = bare.replace(/,(?=\d{3}(\D|$))/g, '');
  const match = /^(\d{1,18})(?:\.(\d{1,18}))?$/.exec(bare);
  if (!match || (currencies !== null && (currencies as string[]).length === 0)) return null;
  const whole = BigInt(match[1]).toString();
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return { key: fraction === '' ? whole : `${whole}.${fraction}`, currencies };
}

/** A query as an amount key (`amountQuery`'s key), or null when it is not an amount. */
export function amountKey(query: string): string | null {
  return amountQuery(query)?.key ?? null;
}

/** The indexed columns of a document: exact terms, amount forms and the text matched by prefix and anywhere, all folded. */
export function indexedColumns(parts: DocumentParts): { exact: string[]; amounts: string[]; text: string } {
  const emails = [...parts.emails, ...(parts.customer ? [parts.customer.email] : [])];
  const exact = unique([...parts.ids, ...emails, ...parts.hashes, ...parts.addresses].map(fold).filter((t) => t !== ''));
  // fields in the order of their names: jsonb keeps keys in its own order, so a document read back lists them differently
  const words = [...Object.keys(parts.words).sort().flatMap((field) => parts.words[field]), ...(parts.customer?.name ? [parts.customer.name] : [])].map(fold).filter((t) => t !== '');
  return { exact, amounts: parts.amount ? amountForms(parts.amount) : [], text: unique([...exact, ...words]).join('\n') };
}

/**
 * A payment's columns without its customer's name and e-mails (the `customer_email` it was made
 * with and its customer's current ones): what a key without customers read access matches payments
 * on (decision 0031, addendum of 2026-11-29), so search is no way to read a customer's address.
 */
export function ownColumns(parts: DocumentParts): { exact: string[]; text: string } {
  const { exact, text } = indexedColumns({ ...parts, emails: [], customer: null });
  return { exact, text };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** Search needs at most this many characters (spec §4). */
export const MAX_QUERY_LENGTH = 100;

/** A query ready for SQL: the folded text, its LIKE pattern, its word-prefix pattern, its amount key. */
export interface NormalisedQuery {
  text: string;
  like: string;
  wordPrefix: string;
  amount: string | null;
  /** The currencies the query names (sign or code): only amounts in one of them match; null when it names none. */
  currencies: string[] | null;
}

export function normaliseQuery(q: string): NormalisedQuery {
  const text = fold(q);
  const amount = amountQuery(q);
  return {
    text,
    like: `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    // POSIX regular expression: the text at the start of the field or after a character that is not a letter or digit
    wordPrefix: `(^|[^[:alnum:]])${text.replace(/[.*+?^${}()|[\]\\]/g, (c) => `\\${c}`)}`,
    amount: amount?.key ?? null,
    currencies: amount?.currencies ?? null,
  };
}
