import { RecordedEvent } from '../event-store.port';
import { LogPosition, comparePositions } from '../position';

/**
 * The embedded store's newest events, as this process appended them, in log order (decision 0019,
 * addendum of the eleventh session). One process owns an embedded store (its directory lock) and
 * every event reaches the log through `SqlEventStore.append`, one statement at a time: so from
 * the first event kept here on, every event of the log after it is kept here too, in order, until
 * it falls out of the window. A subscriber that has read up to one of these events gets what
 * follows from here instead of reading the log again; one whose position is not here (older than
 * the window, appended before this process started) reads the log as before.
 *
 * The events are those a read would give, to the key order of their JSON (PostgreSQL's jsonb
 * orders an object's keys by length, then by their bytes): a view rendered from a kept event is
 * the same text as one rendered after a rebuild. They are frozen, since every subscriber of the
 * process shares them.
 */
export class RecentLog {
  private readonly events: RecordedEvent[] = [];
  /** position → index in `events` plus `dropped` */
  private readonly at = new Map<string, number>();
  /** the streams whose first event (revision 0) is in the window: all their events are */
  private readonly streams = new Map<string, RecordedEvent[]>();
  private dropped = 0;

  constructor(private readonly capacity = 1024) {}

  /** Events one append wrote, in their stream order (which is their log order). */
  add(appended: readonly RecordedEvent[]): void {
    for (const event of appended) {
      const last = this.events[this.events.length - 1];
      // never out of log order: if it ever were, nothing kept so far could be trusted to be complete
      if (last && comparePositions(event.position, last.position) <= 0) this.clear();
      const kept = frozen({ ...event, data: inJsonbOrder(event.data), metadata: inJsonbOrder(event.metadata) as RecordedEvent['metadata'] });
      this.at.set(key(event.position), this.dropped + this.events.length);
      this.events.push(kept);
      const stream = this.streams.get(event.stream);
      if (stream && stream[stream.length - 1].revision === event.revision - 1) stream.push(kept);
      else if (event.revision === 0) this.streams.set(event.stream, [kept]);
      else this.streams.delete(event.stream);
    }
    const excess = this.events.length - this.capacity;
    if (excess > 0) {
      for (const event of this.events.splice(0, excess)) {
        this.at.delete(key(event.position));
        this.streams.delete(event.stream); // its first events are gone
      }
      this.dropped += excess;
    }
  }

  /** Every event of a stream whose first event is in the window, in revision order; null when the window cannot say. */
  stream(stream: string): readonly RecordedEvent[] | null {
    return this.streams.get(stream) ?? null;
  }

  /** Up to `maxCount` events after `position`, or null when the window cannot say (position not kept). */
  after(position: LogPosition | null, maxCount: number): RecordedEvent[] | null {
    if (position === null) return null;
    const index = this.at.get(key(position));
    if (index === undefined) return null;
    const from = index - this.dropped + 1;
    return this.events.slice(from, from + maxCount);
  }

  private clear(): void {
    this.dropped += this.events.length;
    this.events.length = 0;
    this.at.clear();
    this.streams.clear();
  }
}

const key = (p: LogPosition): string => `${p.commit}/${p.prepare}`;

/** A JSON value with every object's keys in jsonb's order: shorter first, then by their UTF-8 bytes. */
export function inJsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inJsonbOrder);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).sort((a, b) => {
    const ab = Buffer.from(a);
    const bb = Buffer.from(b);
    return ab.length - bb.length || Buffer.compare(ab, bb);
  });
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = inJsonbOrder((value as Record<string, unknown>)[k]);
  return out;
}

/** Deep-frozen in place (events every subscriber of the process shares). */
export function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}
