import type { Actor } from '@lib/eventstore';
import { DomainError } from '../domain-error';

export const OPERATOR_NAME_MAX = 100;

/**
 * The actor of an operator's write (suspend, reinstate): `{kind: 'operator', id: <name>}`, the
 * name the CLI gives (`--operator`, else the OS user running it). Trimmed, 1–100 characters.
 */
export function operatorActor(name: unknown): Actor {
  const id = typeof name === 'string' ? name.trim() : '';
  if (id.length === 0 || id.length > OPERATOR_NAME_MAX) {
    throw new DomainError('invalid_request', `An operator is named by 1–${OPERATOR_NAME_MAX} characters.`, 'operator');
  }
  return { kind: 'operator', id, name: null };
}
