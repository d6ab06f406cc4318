import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from './api-error';

/**
 * DTO validation for every route: class-validator rules, unknown fields refused, the first
 * problem reported as 400 invalid_request with `field` as a dotted path (`metadata.order_id`,
 * `items.0.amount`).
 */
export function apiValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: true },
    // every rule of the field at fault is checked, so the message can name the type before a length or range
    stopAtFirstError: false,
    exceptionFactory: (errors) => {
      const { field, message } = firstProblem(errors);
      return new ApiError('invalid_request', message, field);
    },
  });
}

/** class-validator's rules on a value's type, reported before any other rule of the same field. */
const TYPE_RULES = new Set(['whitelistValidation', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject', 'isEnum', 'isIn', 'nestedValidation']);

function firstProblem(errors: ValidationError[], parent = ''): { field: string; message: string } {
  const error = errors[0];
  const field = parent ? `${parent}.${error.property}` : error.property;
  if (error.constraints && Object.keys(error.constraints).length > 0) {
    const failed = Object.entries(error.constraints);
    // a value of the wrong type is told so ("must be a string"), not held to a rule of the right type ("at most 254 characters")
    const [kind, text] = failed.find(([name]) => TYPE_RULES.has(name)) ?? failed[0];
    if (kind === 'whitelistValidation') return { field, message: `${field} is not a known field.` };
    if (error.value === undefined) return { field, message: `${field} is required.` };
    return { field, message: `${text.replace(error.property, field)}.` };
  }
  if (error.children && error.children.length > 0) return firstProblem(error.children, field);
  return { field, message: `${field} is invalid.` };
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
