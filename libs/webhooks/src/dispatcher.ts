import { randomUUID } from 'node:crypto';
import type { Database } from '@lib/database';
import { DeliveryRow, DeliveryStore, RETRY_SCHEDULE_MS } from './delivery-store';
import { WebhookSender } from './http-sender';
import { WebhookSecretStore } from './secret-store';

export interface WebhookDispatcherOptions {
  sender: WebhookSender;
  /** Wall time (tests inject theirs): due checks, leases, schedule, attempt times. */
  now?: () => Date;
  /** Poll interval when idle (default 250 ms); a finished attempt polls again at once. */
  pollMs?: number;
  /** Attempts in flight in this process, in total (default 64). */
  concurrency?: number;
  /** Attempts in flight per endpoint, counted over every worker's leases (default 4). */
  perEndpoint?: number;
  /** How long a claim holds a delivery against other workers (default 60 s; an attempt takes at most 15). */
  leaseMs?: number;
  /** Delays of the retry schedule (default RETRY_SCHEDULE_MS). */
  schedule?: readonly number[];
  /** Told of unexpected errors (logging). */
  onError?: (error: unknown, deliveryId?: string) => void;
}

/** How long a delivery waits when nothing could be tried (endpoint not projected yet, no secret). */
const NOT_READY_DELAY_MS = 2_000;

/**
 * The webhook dispatcher the worker runs (issue 5 point 4): claims due deliveries from
 * `webhook_deliveries` (the outbox the events projection fills) with a lease, sends each with
 * WebhookSender, records the attempt and moves the delivery along the retry schedule. The
 * delivery row is the durable state (status, next_retry_at, attempts), so a restart loses no
 * retry: a stopped dispatcher's deliveries stay due, and a crashed one's leases run out and are
 * claimed again. An attempt whose worker died before recording it is made again (at least
 * once, the same `webhook-id`: receivers deduplicate on it).
 *
 * Concurrency is bounded in total (per process) and per endpoint (over all workers), and claims
 * take every endpoint's oldest due delivery first, so a slow endpoint only slows itself.
 */
export class WebhookDispatcher {
  private readonly store: DeliveryStore;
  private readonly secrets: WebhookSecretStore;
  private readonly sender: WebhookSender;
  private readonly now: () => Date;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  private readonly leaseMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly db: Database,
    private readonly options: WebhookDispatcherOptions,
  ) {
    this.store = new DeliveryStore(db, options.schedule ?? RETRY_SCHEDULE_MS);
    this.now = options.now ?? (() => new Date());
    this.secrets = new WebhookSecretStore(db, { now: this.now });
    this.sender = options.sender;
    this.pollMs = options.pollMs ?? 250;
    this.concurrency = options.concurrency ?? 64;
    this.perEndpoint = options.perEndpoint ?? 4;
    this.leaseMs = options.leaseMs ?? 60_000;
  }

  /** Attempts running now. */
  get busy(): number {
    return this.inFlight.size;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.kick();
  }

  /** Stops claiming and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking;
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Claims and runs every delivery due now and waits for them (and for what they make due at
   * once), at most `rounds` times; resolves how many attempts ran. For tests and tools; a
   * started dispatcher does this by itself.
   */
  async runDue(rounds = 20): Promise<number> {
    let ran = 0;
    for (let i = 0; i < rounds; i++) {
      const claimed = await this.claim();
      if (claimed === 0 && this.inFlight.size === 0) break;
      ran += claimed;
      await Promise.allSettled([...this.inFlight]);
    }
    return ran;
  }

  /** Looks for due deliveries now (e.g. the events projection just wrote some); coalesced with a round in progress. */
  nudge(): void {
    this.kick();
  }

  /** Polls again as soon as possible (coalesced). */
  private kick(): void {
    if (!this.running) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.ticking = this.tick().finally(() => {
      this.ticking = null;
      if (!this.running) return;
      if (this.again) {
        this.again = false;
        return this.kick();
      }
      this.timer = setTimeout(() => this.kick(), this.pollMs);
      this.timer.unref?.();
    });
  }

  private async tick(): Promise<void> {
    try {
      const free = this.concurrency - this.inFlight.size;
      const claimed = await this.claim();
      if (claimed > 0 && claimed === free) this.again = true; // there may be more
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  /** Claims what there is room for and starts the attempts; resolves how many. */
  private async claim(): Promise<number> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const token = randomUUID();
    const rows = await this.store.claimDue(this.now(), free, this.perEndpoint, this.leaseMs, token);
    for (const row of rows) {
      const attempt: Promise<void> = this.attempt(row, token)
        .catch((error) => this.options.onError?.(error, row.id))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.kick();
        });
      this.inFlight.add(attempt);
    }
    return rows.length;
  }

  private async attempt(row: DeliveryRow, token: string): Promise<void> {
    let endpoint: { url: string; deleted_at: Date | null } | undefined;
    try {
      const { rows } = await this.db.query<{ url: string; deleted_at: Date | null }>(
        `SELECT url, deleted_at FROM webhook_endpoints WHERE id = $1`,
        [row.webhook_id],
        'webhooks_dispatch_endpoint',
      );
      endpoint = rows[0];
    } catch (error) {
      // the endpoints projection is being rebuilt (or never ran): try again shortly, no attempt counted
      this.options.onError?.(error, row.id);
      return this.store.release(row.id, token, new Date(this.now().getTime() + NOT_READY_DELAY_MS));
    }
    if (!endpoint) return this.store.release(row.id, token, new Date(this.now().getTime() + NOT_READY_DELAY_MS)); // projection behind the outbox
    if (endpoint.deleted_at) return this.store.abandon(row.id, token, this.now());
    const secrets = await this.secrets.signingSecrets(row.webhook_id);
    if (secrets.length === 0) return this.store.release(row.id, token, new Date(this.now().getTime() + NOT_READY_DELAY_MS));
    const result = await this.sender.send({ url: endpoint.url, eventId: row.event_id, body: JSON.stringify(row.payload), secrets });
    await this.store.recordAutomatic(row, token, result, this.now());
  }
}
