import type { Type } from '@nestjs/common';
import { DECORATORS } from '@nestjs/swagger';
import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { ValidationTypes, getMetadataStorage, validateSync } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { TEXT_RULE_NAMES, checkedRuleOf, isChangeBody } from '@lib/http';

/**
 * The JSON schema of a request DTO, read at run time from the class-validator metadata that
 * validates it (docs/decisions/0015-openapi-contract.md): the validator is the one source of
 * truth, so the document says what the server checks, under `nest build` and under SWC/Jest
 * alike (no @nestjs/swagger CLI plugin, no TypeScript types read at build time).
 *
 * - Types, formats and limits come from the validation decorators (@IsString, @IsInt, @IsIn,
 *   @Length, @Min, @Matches, @ArrayMaxSize, `each: true`, @ValidateNested + @Type, ...).
 * - `required` and `nullable` are found by running the class's own validation on probes: a
 *   property is required when leaving it out fails validation, nullable when null passes
 *   (so @IsOptional, @ValidateIf and @Allow all say what they really do).
 * - Unknown properties are refused by the global pipe (forbidNonWhitelisted), hence
 *   `additionalProperties: false`; a change body (@ChangeBody) has `minProperties: 1`.
 * - A free text (@PlainText) says its rule in the vendor keyword `x-text` (`single-line` or
 *   `multi-line`) and in words.
 * - Rules the use case checks instead of the pipe (a handler, a decider: they need state, or a
 *   `field` such as `metadata.<key>`) are declared with @CheckedBy (libs/http) and merged in.
 * - From @ApiProperty only words are taken (description, example, default, deprecated); a limit
 *   or type it claims that the validator does not check is reported as a finding, not documented.
 */

/** What the converter noticed about a DTO that the document cannot say from its decorators. */
export interface DtoFinding {
  dto: string;
  property: string | null;
  problem: string;
}

export interface DtoSchemaResult {
  schema: SchemaObject;
  /** True when the DTO has no validated property (its body can only be `{}`). */
  empty: boolean;
  /** Nested DTO classes the schema refers to by $ref (they need their own components). */
  nested: Type[];
  findings: DtoFinding[];
}

/** Options of the global validation pipe that change what a body may contain (libs/http). */
const PROBE_OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true, validationError: { target: false, value: false } };

type Mutable = SchemaObject & Record<string, unknown>;

/** Validators that only say something in words (they check what JSON Schema cannot say). */
const DESCRIBED: Record<string, string> = {
  isNotEmptyObject: 'a non-empty object',
  notEquals: 'not a certain value',
  isNotIn: 'not one of certain values',
  contains: 'contains a certain text',
  notContains: 'does not contain a certain text',
};

/** Validators that say a type (and format), whatever their constraints. */
const TYPED: Record<string, Mutable> = {
  isString: { type: 'string' },
  isInt: { type: 'integer' },
  isBoolean: { type: 'boolean' },
  isArray: { type: 'array' },
  isObject: { type: 'object', additionalProperties: true }, // any members: the validator checks none
  isWebauthnRegistration: { type: 'object', additionalProperties: true }, // libs/accounts passkeys/passkey-input.ts: a browser's PublicKeyCredential JSON (WebAuthn checks its members)
  isWebauthnAuthentication: { type: 'object', additionalProperties: true }, // the same, of navigator.credentials.get()
  isDate: { type: 'string', format: 'date-time' },
  isDateString: { type: 'string', format: 'date-time' },
  isIso8601: { type: 'string', format: 'date-time' },
  isISO8601: { type: 'string', format: 'date-time' },
  isIsoTimestamp: { type: 'string', format: 'date-time' }, // libs/payments commands/input-rules.ts: an ISO 8601 instant
  isEmail: { type: 'string', format: 'email' },
  isCustomerEmail: { type: 'string', format: 'email' }, // libs/customers commands/customer-input.ts: the address payments take as customer_email
  isAccountEmail: { type: 'string', format: 'email' }, // libs/accounts commands/account-input.ts: the same rule for a person's address
  isUrl: { type: 'string', format: 'uri' },
  isHttpUrl: { type: 'string', format: 'uri' }, // libs/payments commands/input-rules.ts: an absolute http(s) URL
  isUuid: { type: 'string', format: 'uuid' },
};

/** Validators whose first constraint is the value of one JSON-schema keyword. */
const KEYWORD: Record<string, string> = {
  minLength: 'minLength',
  maxLength: 'maxLength',
  min: 'minimum',
  max: 'maximum',
  isDivisibleBy: 'multipleOf',
  arrayMinSize: 'minItems',
  arrayMaxSize: 'maxItems',
  passwordMaxLength: 'maxLength', // libs/accounts commands/account-input.ts @NewPassword: at most this many code points (after NFKC), else weak_password
};

/**
 * Applies one validator to `target` (the property's schema, or its items' for `each: true`).
 * Returns false when the validator means nothing the converter knows.
 */
function apply(target: Mutable, name: string, constraints: unknown[]): boolean {
  const c = constraints ?? [];
  if (TYPED[name]) {
    Object.assign(target, TYPED[name]);
    return true;
  }
  if (KEYWORD[name]) {
    target[KEYWORD[name]] = c[0];
    return true;
  }
  switch (name) {
    case TEXT_RULE_NAMES['single-line']:
    case TEXT_RULE_NAMES['multi-line']: {
      // libs/http text-input.ts: which characters the text refuses, said by the vendor keyword `x-text`
      const lines = c[0] as string;
      target['x-text'] = lines;
      const words = lines === 'single-line' ? 'One line of plain text: no line break, control character or bidirectional override.' : 'Plain text: line breaks and tabs, but no other control character or bidirectional override.';
      target.description = [target.description, words].filter(Boolean).join(' ');
      return true;
    }
    case 'isNumber':
      if (target.type !== 'integer') target.type = 'number';
      return true;
    case 'isIn':
      target.enum = [...(c[0] as unknown[])];
      return true;
    case 'isEnum':
      target.enum = [...((c[1] as unknown[] | undefined) ?? Object.values(c[0] as object))];
      return true;
    case 'equals':
      target.enum = [c[0]];
      return true;
    case 'isLength':
      target.minLength = c[0] as number;
      if (c[1] !== undefined) target.maxLength = c[1] as number;
      return true;
    case 'isNotEmpty':
      target.minLength = Math.max(1, (target.minLength as number | undefined) ?? 0);
      return true;
    case 'isPositive':
      target.minimum = 0;
      target.exclusiveMinimum = true;
      return true;
    case 'isNegative':
      target.maximum = 0;
      target.exclusiveMaximum = true;
      return true;
    case 'matches':
      target.type = 'string';
      target.pattern = c[0] instanceof RegExp ? c[0].source : String(c[0]);
      return true;
    case 'arrayNotEmpty':
      target.minItems = Math.max(1, (target.minItems as number | undefined) ?? 0);
      return true;
    case 'arrayUnique':
      target.uniqueItems = true;
      return true;
    default:
      if (DESCRIBED[name]) {
        target.description = [target.description, `Must be ${DESCRIBED[name]}.`].filter(Boolean).join(' ');
        return true;
      }
      return false;
  }
}

/** The words @ApiProperty gives a property, and the claims it makes that the validator may not check. */
function apiPropertyOf(dto: Type, property: string): Record<string, unknown> | undefined {
  return Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, dto.prototype as object, property) as Record<string, unknown> | undefined;
}

const CLAIMS = ['type', 'enum', 'format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'nullable'] as const;

/** Runs the DTO's own validation on `plain` and says whether `property` passed. */
function passes(dto: Type, plain: Record<string, unknown>, property: string): boolean {
  const errors = validateSync(plainToInstance(dto, plain) as object, PROBE_OPTIONS);
  return !errors.some((e) => e.property === property);
}

/** The class of a nested DTO (@ValidateNested with class-transformer's @Type, else design:type). */
function nestedClass(dto: Type, property: string): Type | undefined {
  // class-transformer keeps @Type in its own storage; reading it keeps @Type the one place that says it
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
    defaultMetadataStorage: { findTypeMetadata(target: Type, property: string): { typeFunction: () => Type } | undefined };
  };
  const typed = defaultMetadataStorage.findTypeMetadata(dto, property)?.typeFunction();
  if (typed) return typed;
  const design = Reflect.getMetadata('design:type', dto.prototype as object, property) as Type | undefined;
  return design && design !== Object && design !== Array ? design : undefined;
}

/**
 * Every validated property of `dto` (inherited ones too), in declaration order.
 */
function metadataOf(dto: Type): Map<string, ValidationMetadata[]> {
  const all = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const m of all) byProperty.set(m.propertyName, [...(byProperty.get(m.propertyName) ?? []), m]);
  return byProperty;
}

/** True when class-validator knows any rule of `dto` (a DTO at all, not a primitive or an interface's Object). */
export function isValidatedDto(type: unknown): type is Type {
  return typeof type === 'function' && ![String, Number, Boolean, Object, Array].includes(type as never) && metadataOf(type as Type).size > 0;
}

/**
 * The schema of `dto`'s body. `ref(cls)` names a nested DTO's component.
 */
export function dtoSchema(dto: Type, ref: (cls: Type) => ReferenceObject): DtoSchemaResult {
  const findings: DtoFinding[] = [];
  const nested: Type[] = [];
  const note = (property: string | null, problem: string) => findings.push({ dto: dto.name, property, problem });
  const properties: Record<string, SchemaObject | ReferenceObject> = {};
  const required: string[] = [];
  const metadata = metadataOf(dto);

  for (const [property, rules] of metadata) {
    const schema: Mutable = {};
    const items: Mutable = {};
    let typed = false;
    let checked = false; // some rule looks at the value (not only @Allow or conditions)
    for (const rule of rules) {
      if (rule.type === ValidationTypes.CUSTOM_VALIDATION) {
        checked = true;
        const name = rule.name ?? '';
        const known = apply(rule.each ? items : schema, name, rule.constraints);
        if (!known) note(property, `validator ${name || '(custom)'} has no JSON-schema equivalent: the document does not describe it`);
        if ((TYPED[name] || ['isNumber', 'isIn', 'isEnum', 'equals', 'matches'].includes(name)) && !rule.each) typed = true;
      } else if (rule.type === ValidationTypes.NESTED_VALIDATION) {
        checked = true;
        const cls = nestedClass(dto, property);
        if (cls && isValidatedDto(cls)) {
          nested.push(cls);
          if (rule.each) {
            schema.type = 'array';
            Object.assign(items, ref(cls));
          } else {
            Object.assign(schema, { allOf: [ref(cls)] });
            schema.type = 'object';
          }
          typed = true;
        } else note(property, '@ValidateNested without a @Type(() => Dto) class that has validation rules');
      } else if (rule.type === ValidationTypes.IS_DEFINED) {
        checked = true;
      }
    }
    const handled = checkedRuleOf(dto, property);
    if (handled) {
      // rules the use case checks (@CheckedBy): their schema, in the same terms
      checked = true;
      for (const [key, value] of Object.entries(handled.schema)) {
        if (key === 'items') Object.assign(items, value);
        else if (key === 'description') schema.description = [schema.description, value].filter(Boolean).join(' ');
        else schema[key] = value;
      }
      if (handled.schema.type !== undefined) typed = true;
    }
    for (const target of [schema, items]) {
      // @IsIn/@IsEnum alone: the values say the type
      const values = target.enum as unknown[] | undefined;
      if (target.type === undefined && values && values.length > 0) {
        const kinds = new Set(values.map((v) => (Number.isInteger(v) ? 'integer' : typeof v)));
        if (kinds.size === 1 && ['string', 'integer', 'number', 'boolean'].includes([...kinds][0])) target.type = [...kinds][0] as 'string';
        if (target === schema) typed = true;
      }
    }
    if (Object.keys(items).length > 0) {
      if (schema.type === undefined) schema.type = 'array';
      schema.items = items;
    } else if (schema.type === 'array' && !schema.items) {
      schema.items = {};
      note(property, 'an array whose items have no type (add `each: true` to a type validator)');
    }
    if (!typed) note(property, checked ? 'no type validator (@IsString, @IsInt, @IsObject, …): the document cannot say its type' : 'no validation rule (only @Allow or a condition): any value passes the pipe');

    if (!passes(dto, {}, property)) required.push(property);
    if (passes(dto, { [property]: null }, property)) {
      if (schema.type !== undefined) {
        schema.nullable = true;
        if (Array.isArray(schema.enum)) schema.enum = [...(schema.enum as unknown[]), null];
      }
      else schema.description = [schema.description, 'May be null.'].filter(Boolean).join(' ');
    }

    const words = apiPropertyOf(dto, property);
    if (words) {
      for (const key of ['example', 'default', 'deprecated'] as const) if (words[key] !== undefined) schema[key] = words[key];
      if (typeof words.description === 'string') schema.description = [words.description, schema.description].filter(Boolean).join(' ');
      for (const claim of CLAIMS) {
        if (claim === 'type' || words[claim] === undefined) continue;
        if (JSON.stringify(words[claim]) !== JSON.stringify(schema[claim])) {
          note(property, `@ApiProperty says ${claim} ${JSON.stringify(words[claim])} but the validator ${schema[claim] === undefined ? 'does not check it' : `checks ${JSON.stringify(schema[claim])}`}`);
        }
      }
    }
    properties[property] = schema;
  }

  for (const property of documentedOnly(dto, metadata)) note(property, '@ApiProperty without any validation rule: the pipe refuses it as an unknown field');
  const empty = metadata.size === 0;
  if (empty) note(null, 'no validated property: the body can only be {} (unknown fields are refused)');

  const schema: Mutable = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) schema.required = required;
  // a change body (@ChangeBody, libs/http validation.ts) names at least one field
  if (isChangeBody(dto)) schema.minProperties = 1;
  return { schema, empty, nested, findings };
}

/** Properties @ApiProperty describes that class-validator does not know. */
function documentedOnly(dto: Type, metadata: Map<string, ValidationMetadata[]>): string[] {
  const listed = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, dto.prototype as object) as string[] | undefined) ?? [];
  return listed.map((p) => p.replace(/^:/, '')).filter((p) => !metadata.has(p));
}
