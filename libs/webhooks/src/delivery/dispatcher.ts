import { randomUUID } from 'node:crypto';
import type { Database } from '@lib/database';
import { PollLoop } from '@lib/timers';
import type { KeyEncryptionKey } from '@lib/wallets';
import { WebhookSecretUnavailable, openWebhookSecret } from '../app/secret-store';
import { AutomaticAttempt, ClaimedDelivery, DeliveryStore } from './delivery-store';
import { WebhookSender } from './http-sender';
import { RETRY_SCHEDULE_MS } from './retry-schedule';

export interface WebhookDispatcherOptions {
  sender: WebhookSender;
  /**
   * The key-encryption key the signing secrets are sealed under (WALLET_KEK: serviceKek). A
   * secret sealed under another one is not opened: the attempt is recorded failed, without a
   * request, and the reason told to onError.
   */
  kek: KeyEncryptionKey;
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
  /**
   * Told of an attempt the URL policy refused before sending (`url refused: …`, `address refused: …`):
   * a process whose WEBHOOK_ALLOW_PRIVATE_URLS differs from the API's refuses what the API accepted,
   * which must not go unnoticed (operator audit 2026-11-29, F1).
   */
  onRefused?: (refusal: { deliveryId: string; webhookId: string; reason: string }) => void;
}

/** The errors of a send the URL policy refused (libs/webhooks/src/delivery/http-sender.ts). */
const POLICY_REFUSAL = /^(url refused|address refused): /;

/** How long a delivery waits when nothing could be tried (endpoint not projected yet, no secret). */
const NOT_READY_DELAY_MS = 2_000;

const UNDEFINED_TABLE = '42P01';

/** Most attempts recorded in one statement. */
const MAX_RECORD_BATCH = 64;

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
 *
 * An attempt costs two statements: the claim (one for every delivery it claims), which also
 * reads each delivery's endpoint and signing secrets as they are when it runs, so a changed URL,
 * a deletion or a rotation applies to the next attempt; and the record, shared with the attempts
 * that end while the previous record is being written (group commit).
 */
export class WebhookDispatcher {
  private readonly sender: WebhookSender;
  private readonly now: () => Date;
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  private readonly leaseMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  /** Polls: each tick is a round that records and claims. */
  private readonly poll: PollLoop;
  private readonly store: DeliveryStore;
  private readonly schedule: readonly number[];
  /** Attempts sent and waiting to be recorded by the next round (see record). */
  private readonly toRecord: PendingRecord[] = [];
  /** Rounds (record + claim) run one at a time: a claim always sees the leases of the one before. */
  private serial: Promise<unknown> = Promise.resolve();
  private flushQueued = false;

  constructor(
    private readonly db: Database,
    private readonly options: WebhookDispatcherOptions,
  ) {
    this.schedule = options.schedule ?? RETRY_SCHEDULE_MS;
    this.store = new DeliveryStore(db, this.schedule);
    this.now = options.now ?? (() => new Date());
    this.sender = options.sender;
    this.poll = new PollLoop(() => this.tick(), options.pollMs ?? 250);
    this.concurrency = options.concurrency ?? 64;
    this.perEndpoint = options.perEndpoint ?? 4;
    this.leaseMs = options.leaseMs ?? 60_000;
  }

  /** Attempts running now. */
  get busy(): number {
    return this.inFlight.size;
  }

  start(): void {
    this.poll.start();
  }

  /** Stops claiming and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    await this.poll.stop();
    if (this.toRecord.length > 0) this.flushSoon();
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
      const claimed = await this.exclusive(() => this.round(true));
      if (claimed === 0 && this.inFlight.size === 0) break;
      ran += claimed;
      await Promise.allSettled([...this.inFlight]);
    }
    return ran;
  }

  /** Looks for due deliveries now (e.g. the events projection just wrote some); coalesced with a round in progress. */
  nudge(): void {
    this.poll.kick();
  }

  /** A polled round; stopped meanwhile, what it left to record is recorded by a round of its own. */
  private async tick(): Promise<void> {
    try {
      await this.exclusive(() => this.round(true));
    } catch (error) {
      this.options.onError?.(error);
    }
    if (!this.poll.running && this.toRecord.length > 0) this.flushSoon();
  }

  /** Runs fn after the rounds before it (rounds never overlap). */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.serial.then(fn, fn);
    this.serial = run.catch(() => undefined);
    return run;
  }

  /** A round that only records (the dispatcher is stopping, or runDue's attempts are waiting for it). */
  private flushSoon(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.exclusive(async () => {
      this.flushQueued = false;
      await this.round(false);
    }).catch((error) => this.options.onError?.(error));
  }

  /**
   * One round: records the attempts that ended since the last round and, if `claim`, claims what
   * there is room for, in one transaction (one commit for both: the rows just recorded no longer
   * count against their endpoint's bound, so their places are taken again at once), then starts
   * the claimed attempts. Resolves how many were claimed.
   */
  private async round(claim: boolean): Promise<number> {
    const batch = this.toRecord.splice(0, MAX_RECORD_BATCH);
    const free = claim ? this.concurrency - this.inFlight.size + batch.length : 0;
    const token = randomUUID();
    let rows: ClaimedDelivery[] = [];
    try {
      if (batch.length === 0) {
        if (free <= 0) return 0;
        rows = await this.claimDue(this.store, free, token);
      } else if (free <= 0) {
        await this.recordBatch(batch);
      } else {
        let claimFailed = false;
        try {
          rows = await this.db.transaction(async (tx) => {
            const store = new DeliveryStore(tx, this.schedule);
            await store.recordAutomaticMany(batch.map((b) => b.attempt));
            try {
              return await store.claimDue(this.now(), free, this.perEndpoint, this.leaseMs, token);
            } catch (error) {
              claimFailed = true;
              throw error;
            }
          });
        } catch (error) {
          // Only a failed claim (before COMMIT: rolled back, nothing recorded) is retried, recording alone.
          // Any other failure may have committed: its attempts are not recorded twice.
          if (!claimFailed) throw error;
          await this.recordBatch(batch);
          if ((error as { code?: string }).code !== UNDEFINED_TABLE) throw error;
          this.options.onError?.(error); // webhook_endpoints missing (the projection never ran): nothing can be tried yet
          return 0;
        }
      }
    } catch (error) {
      for (const b of batch) b.reject(error);
      throw error;
    }
    for (const b of batch) b.resolve(claim);
    this.startAttempts(rows, token);
    if (this.toRecord.length > 0 || (rows.length > 0 && rows.length === free)) {
      // more to record, or there may be more due
      if (this.poll.running) this.poll.kick();
      else if (this.toRecord.length > 0) this.flushSoon();
    }
    return rows.length;
  }

  private async recordBatch(batch: PendingRecord[]): Promise<void> {
    await this.store.recordAutomaticMany(batch.map((b) => b.attempt));
    for (const b of batch) b.resolve(false);
  }

  /** Claims with `store`; a missing webhook_endpoints table (the projection never ran) claims nothing. */
  private async claimDue(store: DeliveryStore, free: number, token: string): Promise<ClaimedDelivery[]> {
    try {
      return await store.claimDue(this.now(), free, this.perEndpoint, this.leaseMs, token);
    } catch (error) {
      if ((error as { code?: string }).code !== UNDEFINED_TABLE) throw error;
      this.options.onError?.(error);
      return [];
    }
  }

  private startAttempts(rows: ClaimedDelivery[], token: string): void {
    for (const row of rows) {
      const attempt: Promise<void> = this.attempt(row, token)
        .catch((error) => {
          this.options.onError?.(error, row.id);
          return false;
        })
        .then((refilled) => {
          this.inFlight.delete(attempt);
          // a round that recorded this attempt and claimed has taken its place already
          if (!refilled) this.poll.kick();
        });
      this.inFlight.add(attempt);
    }
  }

  /** One attempt; resolves true when the round that recorded it also claimed (its place is taken again). */
  private async attempt(row: ClaimedDelivery, token: string): Promise<boolean> {
    const target = row.target;
    // the endpoints projection has not got the endpoint yet (behind the outbox, or being rebuilt): shortly, no attempt counted
    if (!target) return this.store.release(row.id, token, new Date(this.now().getTime() + NOT_READY_DELAY_MS)).then(() => false);
    if (target.deleted) return this.store.abandon(row.id, token, this.now()).then(() => false);
    if (target.secrets.length === 0) return this.store.release(row.id, token, new Date(this.now().getTime() + NOT_READY_DELAY_MS)).then(() => false);
    let secrets: string[];
    try {
      secrets = target.secrets.map((secret) => openWebhookSecret(this.options.kek, secret));
    } catch (error) {
      if (!(error instanceof WebhookSecretUnavailable)) throw error;
      // a wrong KEK (or an altered row): said in the log with the ids, recorded as a failed
      // attempt without a request, so the delivery follows the retry schedule instead of looping
      this.options.onError?.(error, row.id);
      const now = this.now();
      const result = { ok: false, responseStatus: null, durationMs: 0, error: `not sent: signing secret ${error.reason}`, requestHeaders: {}, address: null, at: now };
      return this.record({ row, token, result, now });
    }
    const result = await this.sender.send({ url: target.url, eventId: row.event_id, body: JSON.stringify(row.payload), secrets });
    if (result.error !== null && POLICY_REFUSAL.test(result.error)) this.options.onRefused?.({ deliveryId: row.id, webhookId: row.webhook_id, reason: result.error });
    return this.record({ row, token, result, now: this.now() });
  }

  /**
   * Queues an attempt's record for the next round (which records every attempt that ended since
   * the one before in one statement, each fenced by its own lease). Resolves once written (true if
   * that round also claimed); rejects if it could not be.
   */
  private record(attempt: AutomaticAttempt): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.toRecord.push({ attempt, resolve, reject });
      if (this.poll.running) this.poll.kick();
      else this.flushSoon();
    });
  }
}

interface PendingRecord {
  attempt: AutomaticAttempt;
  resolve: (claimedAfter: boolean) => void;
  reject: (error: unknown) => void;
}
