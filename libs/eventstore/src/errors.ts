import { ExpectedRevision } from './event-store.port';

/** The stream's revision is not what the writer expected. Every adapter raises exactly this. */
export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream' | 'unknown',
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, found ${String(actual)}`);
  }
}

export class StreamNotFoundError extends Error {
  override readonly name = 'StreamNotFoundError';
  constructor(readonly stream: string) {
    super(`stream ${stream} not found`);
  }
}

/**
 * An append reused event ids inconsistently: some ids of the batch are already stored
 * (or stored in another stream) while others are not. A retried command sends the same
 * batch, so this means two different commands chose the same ids.
 */
export class DuplicateEventIdError extends Error {
  override readonly name = 'DuplicateEventIdError';
  constructor(
    readonly stream: string,
    readonly eventIds: string[],
  ) {
    super(`stream ${stream}: event ids already used by other events: ${eventIds.join(', ')}`);
  }
}
