import { RecordedEvent } from '../event-store.port';
import { LogPosition, comparePositions } from '../position';
import { frozen } from './recent-log';

/**
 * PostgreSQL: the stretch of the log this process's subscriptions read last, shared by all of
 * them (decision 0019, addendum of the twelfth session). A subscription's read returns only
 * events below the visibility horizon (`transaction_id` under the oldest running transaction), so
 * no event can ever appear between two it returned, nor between its `after` and its first: a
 * read's answer is a complete, final run of the log. The window keeps such runs end to end: a
 * subscription whose position is inside it gets what follows from memory (and, for the rest of
 * its page, the log past the window's end: SqlEventStore.subscriptionRead), one outside it reads
 * the database, and a read's answer extends the window when it begins at or inside its end. So
 * subscriptions that follow one another through the same events (the projections, the reactors,
 * the webhook outbox) fetch and parse each event once, not once each.
 *
 * The embedded store keeps its own appends instead (RecentLog): there one process writes
 * everything. Here other processes append too, so only what was read is kept. The events are
 * frozen, since every subscription of the process shares them.
 */
export class ReadWindow {
  private readonly events: RecordedEvent[] = [];
  /** position → index in `events` plus `dropped`; the window's start (the `after` of its first read) maps to `dropped - 1` */
  private readonly at = new Map<string, number>();
  private dropped = 0;
  /** The key of the position the window begins after. */
  private start = '';

  constructor(private readonly capacity = 1024) {}

  /** Up to `maxCount` events after `position`, or null when only the database can say (not in the window, or at its end). */
  after(position: LogPosition | null, maxCount: number): RecordedEvent[] | null {
    const index = this.at.get(keyOf(position));
    if (index === undefined) return null;
    const from = index - this.dropped + 1;
    if (from >= this.events.length) return null;
    return this.events.slice(from, from + maxCount);
  }

  /**
   * A subscription read's answer: the events of the log right after `position`, as the database
   * gave them. Kept when they continue the window (the read began at its end, or inside it and
   * went past it) or begin past it (the window starts again there); an older run is left alone.
   */
  read(position: LogPosition | null, events: readonly RecordedEvent[]): void {
    if (events.length === 0) return;
    const from = keyOf(position);
    const index = this.at.get(from);
    if (index !== undefined) {
      const known = this.dropped + this.events.length - 1 - index; // events of the answer already kept
      if (known < events.length) this.push(events.slice(known));
    } else if (this.events.length === 0 || (position !== null && comparePositions(position, this.events[this.events.length - 1].position) > 0)) {
      this.restart(from);
      this.push(events);
    }
  }

  private push(events: readonly RecordedEvent[]): void {
    for (const event of events) {
      this.at.set(keyOf(event.position), this.dropped + this.events.length);
      this.events.push(frozen(event));
    }
    const excess = this.events.length - this.capacity;
    if (excess <= 0) return;
    // the last event dropped becomes the window's start: what follows it is still known
    const removed = this.events.splice(0, excess);
    this.at.delete(this.start);
    for (const event of removed.slice(0, -1)) this.at.delete(keyOf(event.position));
    this.start = keyOf(removed[removed.length - 1].position);
    this.dropped += excess;
  }

  private restart(start: string): void {
    this.dropped += this.events.length + 1;
    this.events.length = 0;
    this.at.clear();
    this.at.set(start, this.dropped - 1);
    this.start = start;
  }
}

const keyOf = (p: LogPosition | null): string => (p === null ? '0/0' : `${p.commit}/${p.prepare}`);
