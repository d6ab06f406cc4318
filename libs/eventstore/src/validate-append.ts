import { ExpectedRevision, NewEvent } from './event-store.port';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Checks an append's arguments the same way on every adapter, before anything is written. */
export function validateAppend(stream: string, events: NewEvent[], expected: ExpectedRevision): void {
  if (typeof stream !== 'string' || stream.length === 0 || stream.startsWith('$')) {
    throw new TypeError(`invalid stream name ${JSON.stringify(stream)}: non-empty, not starting with $`);
  }
  if (!Array.isArray(events) || events.length === 0) throw new TypeError('append needs at least one event');
  if (typeof expected === 'number' && (!Number.isSafeInteger(expected) || expected < 0)) {
    throw new TypeError(`expected revision must be 'no_stream', 'any' or a revision >= 0, got ${expected}`);
  }
  const seen = new Set<string>();
  for (const event of events) {
    if (!UUID.test(event.id)) throw new TypeError(`event id must be a UUID, got ${JSON.stringify(event.id)}`);
    if (typeof event.type !== 'string' || event.type.length === 0) throw new TypeError('event type must be a non-empty string');
    const id = event.id.toLowerCase();
    if (seen.has(id)) throw new TypeError(`event id ${id} appears twice in one append`);
    seen.add(id);
  }
}
