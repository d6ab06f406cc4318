import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidateIf, getMetadataStorage } from 'class-validator';
import { ApiError, ErrorCode } from './api-error';

const CHANGE_BODY = 'api:change-body';

/**
 * The body of a change (every PATCH route): "send only what changes" (§4), so a body that names
 * nothing to change — `{}`, or no body — is a client's mistake, 400 invalid_request listing the
 * fields it may send (decision 0039, addendum of 2026-11-28). Checked by the API's validation
 * pipe after the DTO's own rules, for every route and use case whose input class carries it; a
 * field sent as null counts as sent (null clears it where the field allows null).
 */
export function ChangeBody(): ClassDecorator {
  return (target) => Reflect.defineMetadata(CHANGE_BODY, true, target);
}

/** Whether `type` is a change body (@ChangeBody). */
export function isChangeBody(type: unknown): boolean {
  return typeof type === 'function' && Reflect.getMetadata(CHANGE_BODY, type) === true;
}

/** The fields a DTO validates, in declaration order. */
function fieldsOf(type: new () => object): string[] {
  return [...new Set(getMetadataStorage().getTargetValidationMetadatas(type, '', true, false).map((m) => m.propertyName))];
}

/** 400 invalid_request when a change body names no field (null counts as named). */
function refuseEmptyChange(type: new () => object, value: unknown): void {
  const named = value !== null && typeof value === 'object' && Object.values(value).some((v) => v !== undefined);
  if (!named) throw new ApiError('invalid_request', `Send at least one field to change: ${fieldsOf(type).join(', ')}.`);
}

/** class-validator's pipe, and the rule of change bodies. */
class ApiValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const valid: unknown = await super.transform(value, metadata);
    if (metadata.type === 'body' && isChangeBody(metadata.metatype)) refuseEmptyChange(metadata.metatype as new () => object, valid);
    return valid;
  }
}

/**
 * DTO validation for every route: class-validator rules, unknown fields refused, the first
 * problem reported as 400 invalid_request with `field` as a dotted path (`metadata.order_id`,
 * `items.0.amount`); a change body (@ChangeBody) that names no field refused.
 */
export function apiValidationPipe(): ValidationPipe {
  return new ApiValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: true },
    // every rule of the field at fault is checked, so the message can name the type before a length or range
    stopAtFirstError: false,
    exceptionFactory: (errors) => {
      const { field, message, code } = firstProblem(errors);
      return new ApiError(code, message, field);
    },
  });
}

/** class-validator's rules on a value's type, reported before any other rule of the same field. */
const TYPE_RULES = new Set(['whitelistValidation', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject', 'isEnum', 'isIn', 'nestedValidation']);
/** Rules on the value as a whole, before the type rules of its members (`@IsString({ each: true })`): null is "not an array", not "each value … must be a string". */
const CONTAINER_RULES = new Set(['whitelistValidation', 'isArray', 'isObject']);
/** What a type rule asks for, to say so of a value given of another type where the DTO's own message reads "… is required" (meant for a missing field). */
const TYPE_NAMES: Record<string, string> = { isString: 'a string', isInt: 'an integer', isNumber: 'a number', isBoolean: 'a boolean', isArray: 'an array', isObject: 'an object' };

/**
 * The error code a rule names in its options (`{context: {code}}`: a rule the spec gives its own
 * code, such as a new password's length, `weak_password`); else invalid_request.
 */
function codeOf(error: ValidationError, rule: string): ErrorCode {
  const code = (error.contexts?.[rule] as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? (code as ErrorCode) : 'invalid_request';
}

function firstProblem(errors: ValidationError[], parent = ''): { field: string; message: string; code: ErrorCode } {
  const error = errors[0];
  const field = parent ? `${parent}.${error.property}` : error.property;
  if (error.constraints && Object.keys(error.constraints).length > 0) {
    const failed = Object.entries(error.constraints);
    // a value of the wrong type is told so ("must be a string"), not held to a rule of the right type ("at most 254 characters")
    const [kind, text] = failed.find(([name]) => CONTAINER_RULES.has(name)) ?? failed.find(([name]) => TYPE_RULES.has(name)) ?? failed[0];
    if (kind === 'whitelistValidation') return { field, message: `${field} is not a known field.`, code: 'invalid_request' };
    if (error.value === undefined) return { field, message: `${field} is required.`, code: 'invalid_request' };
    // the field is there, of another type: "code is required" would mislead (audit "rest" finding 7)
    if (TYPE_NAMES[kind] && text.endsWith(' is required')) return { field, message: `${field} must be ${TYPE_NAMES[kind]}.`, code: 'invalid_request' };
    // one wording for a flag on every route (class-validator's own default says "must be a boolean value")
    if (kind === 'isBoolean') return { field, message: `${field} must be true or false.`, code: 'invalid_request' };
    return { field, message: `${text.replace(error.property, field)}.`, code: codeOf(error, kind) };
  }
  if (error.children && error.children.length > 0) return firstProblem(error.children, field);
  return { field, message: `${field} is invalid.`, code: 'invalid_request' };
}

const inputPipe = apiValidationPipe();

/**
 * A use case's input checked against its DTO (class-validator) with the API's own validation
 * pipe: the same rules, first problem and `field` as an HTTP body (a DomainRefusal,
 * invalid_request), for whoever sends the command — the HTTP route, the CLI, the admin
 * endpoint, a test. Answers the DTO instance (texts trimmed where the DTO says so).
 */
export async function validateInput<T extends object>(type: new () => T, value: unknown): Promise<T> {
  return (await inputPipe.transform(value, { type: 'body', metatype: type, data: '' })) as T;
}

/**
 * A member that may be left out: its rules run only when it is present (not undefined). An
 * explicit null is present, so it meets the member's type rule (no null unless a rule allows it).
 */
export const Omittable = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);
