import { StreamNotFoundError } from './errors';
import { EventStore, RecordedEvent } from './event-store.port';

/** A stream's events, or none for a stream never written (readStream throws StreamNotFoundError there). */
export async function readStreamOrEmpty(store: Pick<EventStore, 'readStream'>, stream: string): Promise<RecordedEvent[]> {
  try {
    return await store.readStream(stream);
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
}
