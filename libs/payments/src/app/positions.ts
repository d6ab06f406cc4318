import { LogPosition, comparePositions } from '@lib/eventstore';

/** The later of two log positions (null: none). What a use case waits for is the latest of everything it appended or answers with. */
export function later(a: LogPosition | null | undefined, b: LogPosition | null | undefined): LogPosition | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return comparePositions(a, b) >= 0 ? a : b;
}
