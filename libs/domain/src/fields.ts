/**
 * Views built from events: the fields a view copies from an event's data, declared once as a list
 * that gives both the view's type (`Pick`, `OrNull`) and the copy (`pickFields`, `orNullFields`),
 * so a view never writes an event's field types out again.
 */

/** `T`'s fields, each present: null where `T` may leave it out (an event recorded before the field existed). */
export type OrNull<T> = { [K in keyof T]-?: Exclude<T[K], undefined> | null };

/** The fields `keys` of `source`, as they are (the runtime `Pick<T, K>`), in the order of `keys`. */
export function pickFields<T, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) picked[key] = source[key];
  return picked;
}

/** The fields `keys` of `source`, null where absent (the runtime `OrNull<Pick<T, K>>`), in the order of `keys`. */
export function orNullFields<T, K extends keyof T>(source: T, keys: readonly K[]): OrNull<Pick<T, K>> {
  const picked = {} as Record<K, unknown>;
  for (const key of keys) picked[key] = source[key] ?? null;
  return picked as OrNull<Pick<T, K>>;
}
