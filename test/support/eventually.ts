import { inspect } from 'node:util';

export interface EventuallyOptions {
  /** What is awaited, for the failure message (e.g. "payment succeeded"). */
  what?: string;
  /** Deadline from the first read (default 15 s: a loaded 2-core CI machine, never a fixed sleep). */
  timeoutMs?: number;
  /** Pause between reads (default 25 ms). */
  intervalMs?: number;
}

const truthy = (value: unknown): boolean => Boolean(value);

/**
 * Waits for a state, not for luck: reads `read()` until `ok(value)` holds and resolves that
 * value. Use it after every asynchronous step whose effect a test asserts (a delivery recorded,
 * a projection caught up, a timer fired in a worker, a process restarted). A read that throws
 * (an `expect` inside it, a connection refused while a server restarts) counts as "not yet".
 * After the deadline it fails with the last value seen, or the last error thrown, so a red test
 * says what it saw instead of "timeout".
 *
 *   const log = await eventually(() => client.get(`/webhooks/${id}/deliveries`), (r) => r.body.data.every(isSucceeded), { what: 'deliveries succeeded' });
 *   const row = await eventually(() => delivery(id), { timeoutMs: 20_000 }); // any truthy value
 */
export async function eventually<T>(read: () => Promise<T> | T, ok: (value: T) => boolean, options?: EventuallyOptions): Promise<T>;
/** Without a predicate: until `read` resolves a truthy value (resolved, so never null or false). */
export async function eventually<T>(read: () => Promise<T | null | undefined | false> | T | null | undefined | false, options?: EventuallyOptions): Promise<T>;
export async function eventually<T>(read: () => Promise<T> | T, okOrOptions: ((value: T) => boolean) | EventuallyOptions = truthy, maybeOptions: EventuallyOptions = {}): Promise<T> {
  const ok = typeof okOrOptions === 'function' ? okOrOptions : truthy;
  const options = typeof okOrOptions === 'function' ? maybeOptions : okOrOptions;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const intervalMs = options.intervalMs ?? 25;
  const started = Date.now();
  let reads = 0;
  let last: { value: T } | { error: unknown } | null = null;
  for (;;) {
    reads++;
    try {
      const value = await read();
      if (ok(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() - started >= timeoutMs) break;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  const head = `eventually${options.what ? ` (${options.what})` : ''}: not true after ${Date.now() - started} ms and ${reads} reads`;
  if (last && 'error' in last) {
    const error = last.error instanceof Error ? last.error : new Error(String(last.error));
    error.message = `${head}; the last read threw:\n${error.message}`;
    throw error;
  }
  throw new Error(`${head}; the last value seen:\n${inspect(last?.value, { depth: 6, breakLength: 120 })}`);
}
