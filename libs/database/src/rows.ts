/**
 * Rows into objects by the columns' names, so a mapper states only what it converts (a date, a
 * bigint, a default) and not every column again.
 */

/** `locked_until` → `lockedUntil`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** A row with its snake_case columns under camelCase names. */
export type Camelized<Row> = { [K in keyof Row & string as CamelCase<K>]: Row[K] };

/** The columns of a row named `${prefix}…`, under the rest of the name: a joined table's columns. */
export type Unprefixed<Row, Prefix extends string> = { [K in keyof Row & string as K extends `${Prefix}${infer Name}` ? Name : never]: Row[K] };

/** A row's columns named `${prefix}…`: how a query names the columns of a joined table (the inverse of Unprefixed). */
export type Prefixed<Row, Prefix extends string> = { [K in keyof Row & string as `${Prefix}${K}`]: Row[K] };

/** Every column of `row` under its camelCase name. */
export function camelized<Row extends object>(row: Row): Camelized<Row> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) out[column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = value;
  return out as Camelized<Row>;
}

/**
 * The columns of `row` named `${prefix}…`, under the rest of the name; the others are left out.
 * `SELECT k.*, b.name AS business_name, …` → `unprefixed(row, 'business_')` is the business.
 */
export function unprefixed<Row extends object, Prefix extends string>(row: Row, prefix: Prefix): Unprefixed<Row, Prefix> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) if (column.startsWith(prefix) && column.length > prefix.length) out[column.slice(prefix.length)] = value;
  return out as Unprefixed<Row, Prefix>;
}

/** A timestamp column as a new Date (drivers give a Date or an ISO string); null stays null. */
export function dateOrNull(value: Date | string | null): Date | null {
  return value === null ? null : new Date(value);
}
