import { RecordedEvent, formatPosition } from '@lib/eventstore';

/** Hashes of chain objects, printed as they are; every other `*_hash` member is a credential's. */
const CHAIN_HASHES = new Set(['tx_hash', 'block_hash']);

/**
 * An event's data as an operator may see it: the hashes of credentials (password_hash,
 * code_hash, token_hash, secret_hash, …) at any depth replaced by "[redacted]" — an argon2
 * password hash allows offline guessing, and the log keeps it for ever. The log itself is unchanged.
 */
export function redactCredentials(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactCredentials);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, key.endsWith('_hash') && !CHAIN_HASHES.has(key) && v !== null ? '[redacted]' : redactCredentials(v)]));
}

/** One event as a JSON line: the stored format, with bigints and dates as strings, credentials' hashes redacted. */
export function eventJson(event: RecordedEvent): string {
  return JSON.stringify({
    id: event.id,
    stream: event.stream,
    revision: event.revision,
    position: formatPosition(event.position),
    type: event.type,
    recorded_at: event.recordedAt.toISOString(),
    data: redactCredentials(event.data),
    metadata: event.metadata,
  });
}

/** A plain aligned table; long cells are cut with an ellipsis. */
export function table(headers: string[], rows: (string | number | null)[][], maxWidth = 60): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => truncate(c == null ? '' : String(c), maxWidth)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(cells[0]), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n');
}

/**
 * One event as a --pretty row: `occurred_at`, the business's clock (`metadata.occurredAt`, what the
 * API shows; a simulated business's test clock may run ahead of wall time), "-" when the event
 * recorded none, beside `recorded_at`, the log's wall time (ops audit F6).
 */
export function eventRow(event: RecordedEvent): (string | number)[] {
  const occurred = event.metadata.occurredAt;
  return [
    event.revision,
    formatPosition(event.position),
    typeof occurred === 'string' && !Number.isNaN(Date.parse(occurred)) ? new Date(occurred).toISOString() : '-',
    event.recordedAt.toISOString(),
    event.type,
    JSON.stringify(redactCredentials(event.data)),
    [event.metadata.actor ? `actor=${event.metadata.actor.kind}:${event.metadata.actor.id ?? '-'}` : '', event.metadata.correlationId ? `corr=${event.metadata.correlationId}` : '']
      .filter(Boolean)
      .join(' '),
  ];
}
export const EVENT_HEADERS = ['rev', 'position', 'occurred_at', 'recorded_at', 'type', 'data', 'metadata'];

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A progress bar on stderr: done/total, events/s and ETA; redrawn in place on a terminal. */
export class ProgressBar {
  private lastDraw = 0;
  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number, total: number, elapsedMs: number, force = false): void {
    const now = Date.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    const width = 30;
    const filled = Math.round(fraction * width);
    const eta = rate > 0 ? Math.max(0, (total - done) / rate) : 0;
    const text =
      `${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(1).padStart(5)}% ` +
      `${done}/${total} events  ${Math.round(rate)} events/s  ETA ${formatDuration(eta)}`;
    if (this.stream.isTTY) this.stream.write(`\r${text}`);
    else this.stream.write(`${text}\n`);
  }

  finish(done: number, elapsedMs: number): void {
    this.update(done, done, elapsedMs, true);
    if (this.stream.isTTY) this.stream.write('\n');
  }
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
