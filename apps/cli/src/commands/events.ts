import { EventStore, LogPosition, RecordedEvent, StreamNotFoundError, parsePosition } from '@lib/eventstore';
import { EVENT_HEADERS, eventJson, eventRow, table } from '../output';

export interface StreamOptions {
  pretty?: boolean;
  from?: number;
  limit?: number;
  backwards?: boolean;
}

const PAGE = 1000;

/**
 * `events stream <stream>`: a stream's history, oldest first (newest first with --backwards),
 * as JSON lines written page by page, or one table with --pretty. Returns the exit code.
 */
export async function printStream(
  store: EventStore,
  stream: string,
  options: StreamOptions,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  const rows: RecordedEvent[] = [];
  const emit = (page: RecordedEvent[]) => (options.pretty ? rows.push(...page) : page.forEach((e) => out(eventJson(e))));
  const limit = options.limit ?? Infinity;
  let next = options.from;
  let printed = 0;
  try {
    while (printed < limit) {
      const page = await store.readStream(stream, {
        direction: options.backwards ? 'backwards' : 'forwards',
        fromRevision: next,
        maxCount: Math.min(PAGE, limit - printed),
      });
      emit(page);
      printed += page.length;
      if (page.length < PAGE) break;
      next = page[page.length - 1].revision + (options.backwards ? -1 : 1);
      if (next < 0) break;
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) {
      err(`stream ${stream} not found`);
      return 1;
    }
    throw error;
  }
  if (options.pretty) out(table(EVENT_HEADERS, rows.map(eventRow)));
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
