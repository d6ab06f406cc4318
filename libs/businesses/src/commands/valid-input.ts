import { DomainRefusal } from '@lib/domain';
import { apiValidationPipe } from '@lib/http';
import { DomainError, DomainErrorCode } from '../domain-error';

const pipe = apiValidationPipe();

/**
 * A use case's input checked against its DTO (class-validator), with the API's own validation
 * pipe: the same rules, the same first problem and the same `field` as an HTTP body. Answers the
 * DTO instance (strings trimmed where the DTO says so); a problem is a DomainError
 * (invalid_request), so every caller — CLI, the admin endpoint, tests — sees one kind of refusal.
 */
export async function validInput<T extends object>(type: new () => T, value: unknown): Promise<T> {
  try {
    return (await pipe.transform(value, { type: 'body', metatype: type, data: '' })) as T;
  } catch (error) {
    if (error instanceof DomainRefusal && !(error instanceof DomainError)) throw new DomainError(error.code as DomainErrorCode, error.message, error.field);
    throw error;
  }
}
