import { RecordedEvent } from './event-store.port';

/**
 * The streams a CommandRunner last read or wrote, as they were then, least recently used first
 * out, at most `maxEvents` events in all. Never a source of truth: the runner decides on a kept
 * stream only to append at its last revision, which the store refuses when anything was appended
 * since (the runner then reads the stream and decides again); a decision that would append
 * nothing, or refuses, is decided again on a fresh read before it is answered.
 */
export class KeptStreams {
  private readonly streams = new Map<string, readonly RecordedEvent[]>();
  private events = 0;

  constructor(private readonly maxEvents: number) {}

  get(stream: string): readonly RecordedEvent[] | undefined {
    const kept = this.streams.get(stream);
    if (kept === undefined) return undefined;
    this.streams.delete(stream); // most recently used
    this.streams.set(stream, kept);
    return kept;
  }

  keep(stream: string, events: readonly RecordedEvent[]): void {
    this.forget(stream);
    if (events.length === 0 || events.length > this.maxEvents / 4) return;
    this.streams.set(stream, events);
    this.events += events.length;
    for (const [oldest, kept] of this.streams) {
      if (this.events <= this.maxEvents) break;
      this.streams.delete(oldest);
      this.events -= kept.length;
    }
  }

  forget(stream: string): void {
    const kept = this.streams.get(stream);
    if (kept === undefined) return;
    this.streams.delete(stream);
    this.events -= kept.length;
  }
}
