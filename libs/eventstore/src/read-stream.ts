import { StreamNotFoundError } from './errors';
import { EventStore, ReadStreamOptions, RecordedEvent } from './event-store.port';

/** A stream's events, or none for a stream never written (readStream throws StreamNotFoundError there). */
export async function readStreamOrEmpty(store: Pick<EventStore, 'readStream'>, stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
  try {
    return await store.readStream(stream, options);
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
}
