import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';

/**
 * Building blocks of the OpenAPI schemas of the resources the routes answer with (each route
 * folder's schemas.ts): component references, the common scalars, closed objects and lists.
 */

/** A reference to the named component `name` (a resource of some schemas.ts). */
export const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

export const timestamp: SchemaObject = { type: 'string', format: 'date-time' };
export const str: SchemaObject = { type: 'string' };
export const int: SchemaObject = { type: 'integer' };

/** Null too (an enum lists null as well, as OpenAPI 3.0.3 asks). */
export const nullable = (schema: SchemaObject): SchemaObject => ({ ...schema, nullable: true, ...(schema.enum ? { enum: [...schema.enum, null] } : {}) });

/**
 * A closed object (`additionalProperties: false`, so the contract tests fail on a field the
 * document does not name) whose properties are all required but `optional` (nullable ones say so).
 */
export function object(properties: Record<string, SchemaObject | ReferenceObject>, extra: SchemaObject = {}, optional: string[] = []): SchemaObject {
  return { type: 'object', ...extra, required: Object.keys(properties).filter((p) => !optional.includes(p)), properties, additionalProperties: false };
}

/** The `kind` of a resource object (spec §2): the one string that names what the object is. */
export const kind = (name: string): SchemaObject => ({ type: 'string', enum: [name] });

/**
 * A resource object (spec §2) as a closed object (object): its `kind` (`name`) first, then its
 * own `properties`, all required; `description` says what it is.
 */
export function resource(name: string, description: string, properties: Record<string, SchemaObject | ReferenceObject>): SchemaObject {
  return object({ kind: kind(name), ...properties }, { description });
}

/** What a DELETE answers for the object it removed: its `kind` (`name`), its `id` and `deleted: true`. */
export const deletedResource = (name: string, description: string, id: SchemaObject = str): SchemaObject => resource(name, description, { id, deleted: { type: 'boolean', enum: [true] } });

/**
 * The `properties` of the component `name` by reference to its own
 * (`#/components/schemas/<name>/properties/<property>`), for a component that is that object with
 * more (spread them and add). OpenAPI 3.0's allOf cannot extend a closed object (the referenced
 * one's `additionalProperties: false` would refuse the added fields), and a copy would repeat
 * every property in the document and in the generated client.
 */
export function propertiesOf(name: string, properties: Record<string, unknown>): Record<string, ReferenceObject> {
  return Object.fromEntries(Object.keys(properties).map((p) => [p, { $ref: `${ref(name).$ref}/properties/${p}` }]));
}

/** The closed object `schema`, the component `name`, again with its properties by reference (propertiesOf). */
export const sameAs = (name: string, schema: SchemaObject): SchemaObject => ({ ...schema, properties: propertiesOf(name, schema.properties ?? {}) });

/**
 * A list response (spec §2 Lists) of `item`, a component reference: `<Name>List`, a named
 * component that platform/openapi.ts derives from the `ListEnvelope` component.
 */
export function listOf(item: SchemaObject | ReferenceObject): ReferenceObject {
  if (!('$ref' in item)) throw new Error('listOf: lists are of named components (pass a $ref, e.g. PAYMENT_SCHEMA)');
  return { $ref: `${item.$ref}List` };
}
