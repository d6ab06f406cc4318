import { EventStore, LogPosition, RecordedEvent, StreamNotFoundError, parsePosition } from '@lib/eventstore';
import { EVENT_HEADERS, eventJson, eventRow, table } from '../output';

export interface StreamOptions {
  pretty?: boolean;
  from?: string;
  limit?: string;
  backwards?: boolean;
}

/** `events stream <stream>`: a stream's history, oldest first, as JSON lines or a table. */
export async function printStream(store: EventStore, stream: string, options: StreamOptions, out: (line: string) => void): Promise<number> {
  let events: RecordedEvent[] = [];
  try {
    const maxCount = options.limit ? Number(options.limit) : undefined;
    const fromRevision = options.from !== undefined ? Number(options.from) : undefined;
    if (options.backwards) {
      events = await store.readStream(stream, { direction: 'backwards', fromRevision, maxCount });
    } else {
      // page through the stream so a long history never sits in memory twice
      let next = fromRevision ?? 0;
      for (;;) {
        const page = await store.readStream(stream, { fromRevision: next, maxCount: Math.min(1000, maxCount ? maxCount - events.length : 1000) });
        events.push(...page);
        if (page.length < 1000 || (maxCount && events.length >= maxCount)) break;
        next = page[page.length - 1].revision + 1;
      }
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) {
      out(`stream ${stream} not found`);
      return 1;
    }
    throw error;
  }
  if (options.pretty) out(table(EVENT_HEADERS, events.map(eventRow)));
  else for (const event of events) out(eventJson(event));
  return 0;
}

export interface TailOptions {
  from?: string;
  pretty?: boolean;
}

/** `events tail`: follows the global log (from now by default) until stopped. */
export async function tailLog(store: EventStore, options: TailOptions, out: (line: string) => void, signal: AbortSignal): Promise<void> {
  let after: LogPosition | null;
  if (!options.from || options.from === 'now') after = await store.headPosition();
  else after = parsePosition(options.from);
  const subscription = store.subscribe(
    async (events) => {
      for (const event of events) out(options.pretty ? [event.stream, ...eventRow(event)].join('  ') : eventJson(event));
    },
    { after },
  );
  await new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
    subscription.done.then(resolve, resolve);
  });
  await subscription.stop();
  await subscription.done;
}
