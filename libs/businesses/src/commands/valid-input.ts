import { DomainRefusal } from '@lib/domain';
import { validateInput } from '@lib/http';
import { DomainError, DomainErrorCode } from '../domain-error';

/**
 * validateInput (libs/http), with a problem turned into a DomainError (invalid_request): the
 * admin endpoint renders that kind of refusal, so every caller sees one kind.
 */
export async function validInput<T extends object>(type: new () => T, value: unknown): Promise<T> {
  try {
    return await validateInput(type, value);
  } catch (error) {
    if (error instanceof DomainRefusal && !(error instanceof DomainError)) throw new DomainError(error.code as DomainErrorCode, error.message, error.field);
    throw error;
  }
}
