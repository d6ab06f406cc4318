/**
 * Rules of a request field that its use case checks rather than the validation pipe: they need
 * state or a table, or they report a `field` more precise than the property (`metadata.<key>`,
 * `event_types.<i>`), or a code of their own (`invalid_email`). The pipe cannot say them, so
 * the API document would not either; `@CheckedBy` names who checks them and gives their JSON
 * schema, built from the same constants the check uses, and the document merges it into the
 * field's schema (apps/api/src/platform/dto-schema.ts, decision 0015).
 *
 * A claim made here is a promise the server keeps: test/api/documented-limits.e2e.ts sends, for
 * every limit the document states, a body just past it and expects a 400.
 */
export interface CheckedRule {
  /** Who checks it, for readers of the DTO (`the decider`, `domain/metadata.ts`, ...). */
  by: string;
  /** What it checks, as JSON schema (OpenAPI 3.0 keywords); `items` applies to an array's items. */
  schema: Record<string, unknown>;
}

const CHECKED_BY = 'api:checked-by';

export function CheckedBy(by: string, schema: Record<string, unknown>): PropertyDecorator {
  return (target, property) => Reflect.defineMetadata(CHECKED_BY, { by, schema } satisfies CheckedRule, target, property);
}

/** The rule `@CheckedBy` declared on `dto`'s `property`, if any. */
export function checkedRuleOf(dto: { prototype: object }, property: string): CheckedRule | undefined {
  return Reflect.getMetadata(CHECKED_BY, dto.prototype, property) as CheckedRule | undefined;
}
