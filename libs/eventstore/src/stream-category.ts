/**
 * A stream category: every stream of one aggregate type is `<category>-<id>`. Each capability
 * declares its categories once, beside its events, and builds and parses stream names only
 * through them (never with a literal prefix). No category's prefix may be a prefix of another's
 * (`payment-` would also match `payment-reference-…`): `assertDistinctCategories` checks a list,
 * and a test runs it over every category the composition root declares.
 */
export interface StreamCategory {
  /** The category as stored (`payment`); part of the stored format, never renamed. */
  readonly name: string;
  /** `<name>-<id>`; refuses an id the category does not take. */
  stream(id: string): string;
  /** The id of one of this category's streams, or null for any other stream. */
  parse(stream: string): string | null;
  /** True for this category's streams. */
  owns(stream: string): boolean;
}

/** Declares a category whose ids match `idPattern` (anchored). */
export function streamCategory(name: string, idPattern: RegExp): StreamCategory {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`stream category ${JSON.stringify(name)}: lower case letters, digits and _ only`);
  const prefix = `${name}-`;
  const anchored = new RegExp(`^(?:${idPattern.source})$`);
  const parse = (stream: string): string | null => {
    if (!stream.startsWith(prefix)) return null;
    const id = stream.slice(prefix.length);
    return anchored.test(id) ? id : null;
  };
  return {
    name,
    stream(id: string): string {
      if (!anchored.test(id)) throw new Error(`stream category ${name}: ${JSON.stringify(id)} is not one of its ids`);
      return prefix + id;
    },
    parse,
    owns: (stream: string) => parse(stream) !== null,
  };
}

/**
 * The union of the events a map of event type → data names: `EventUnion<{ A: AData; B: BData }>` is
 * `{ type: 'A'; data: AData } | { type: 'B'; data: BData }`, the shape eventOf returns.
 */
export type EventUnion<M> = { [K in keyof M & string]: { type: K; data: M[K] } }[keyof M & string];

/**
 * A recorded event as one of `category`'s events of `types`, or null: another category's stream
 * (an event without a stream is taken as its own), or a type this version does not know (readers
 * skip those).
 */
export function eventOf<E extends { type: string; data: unknown }>(category: StreamCategory, types: readonly string[], event: { stream?: string; type: string; data: unknown }): E | null {
  if (event.stream !== undefined && !category.owns(event.stream)) return null;
  if (!types.includes(event.type)) return null;
  return { type: event.type, data: event.data } as E;
}

/** Throws when two categories share a name or one's `<name>-` prefix starts another's. */
export function assertDistinctCategories(categories: readonly StreamCategory[]): void {
  for (const a of categories) {
    for (const b of categories) {
      if (a === b) continue;
      if (a.name === b.name) throw new Error(`stream category ${a.name} is declared twice`);
      if (`${b.name}-`.startsWith(`${a.name}-`)) throw new Error(`stream category ${a.name}- is a prefix of ${b.name}-`);
    }
  }
}
