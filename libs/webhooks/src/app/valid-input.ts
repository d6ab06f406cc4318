import { apiValidationPipe } from '@lib/http';

const pipe = apiValidationPipe();

/**
 * A use case's input checked against its DTO (class-validator) with the API's own validation
 * pipe: the same rules, first problem and `field` as an HTTP body (400 invalid_request), for
 * whoever sends the command. Answers the DTO instance (texts trimmed where the DTO says so).
 */
export async function validInput<T extends object>(type: new () => T, value: unknown): Promise<T> {
  return (await pipe.transform(value, { type: 'body', metatype: type, data: '' })) as T;
}
