import type { Sql } from '@lib/database';
import { Page, businessFilters, PageRequest, toPage } from '@lib/http';
import type { StoredSecret } from '../app/secret-store';
import type { ApiEvent } from '../read/events.projector';
import type { SendResult } from './http-sender';
import { newestFirstPage } from '../read/newest-first-page';
import { iso } from '../read/views';
import { RETRY_SCHEDULE_MS } from './retry-schedule';

export type DeliveryStatus = 'retrying' | 'succeeded' | 'failed';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['succeeded', 'retrying', 'failed'];

export type AttemptTrigger = 'automatic' | 'manual' | 'test';

/** One attempt as the delivery log shows it (spec §2), plus why it failed. */
export interface DeliveryAttempt {
  at: string;
  response_status: number | null;
  duration_ms: number;
  trigger: AttemptTrigger;
  /** null on success; otherwise `HTTP 500`, `timeout: …`, `redirect (302) not followed`, `address refused: …`, … */
  error: string | null;
}

/** The webhook delivery object (spec §2, `kind` = `webhook_delivery`). */
export interface WebhookDelivery {
  kind: 'webhook_delivery';
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  subject: { kind: string; id: string };
  status: DeliveryStatus;
  /** Of the last attempt; null before the first, or when no answer came. */
  response_status: number | null;
  duration_ms: number | null;
  /** Attempts made, whatever their trigger. */
  attempt: number;
  attempts: DeliveryAttempt[];
  /** When the next automatic attempt is due; null once succeeded or failed. */
  next_retry_at: string | null;
  /** The headers of the last attempt (never a secret). */
  request_headers: Record<string, string>;
  /** The event, as sent. */
  payload: ApiEvent;
  created_at: string;
}

/** A row of `webhook_deliveries` (migration 004). */
export interface DeliveryRow {
  id: string;
  business_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  subject_kind: string;
  subject_id: string;
  payload: ApiEvent;
  test: boolean;
  sort_key: string;
  status: DeliveryStatus;
  attempt: number;
  automatic_attempts: number;
  attempts: DeliveryAttempt[];
  response_status: number | null;
  duration_ms: number | null;
  next_retry_at: Date | null;
  request_headers: Record<string, string>;
  locked_until: Date | null;
  lease_token: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Attempts kept in a delivery's log (the newest); `attempt` still counts them all. */
export const ATTEMPTS_KEPT = 100;

const COLUMNS = `id, business_id, webhook_id, event_id, event_type, subject_kind, subject_id, payload, test, sort_key, status, attempt,
  automatic_attempts, attempts, response_status, duration_ms, next_retry_at, request_headers, locked_until, lease_token,
  created_at, updated_at`;

export function deliveryView(row: DeliveryRow): WebhookDelivery {
  return {
    kind: 'webhook_delivery',
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    subject: { kind: row.subject_kind, id: row.subject_id },
    status: row.status,
    response_status: row.response_status === null ? null : Number(row.response_status),
    duration_ms: row.duration_ms === null ? null : Number(row.duration_ms),
    attempt: Number(row.attempt),
    // jsonb orders keys its own way: put them back in the documented order
    attempts: row.attempts.map((a) => ({ at: a.at, response_status: a.response_status, duration_ms: a.duration_ms, trigger: a.trigger, error: a.error ?? null })),
    next_retry_at: row.next_retry_at ? iso(row.next_retry_at) : null,
    request_headers: orderedHeaders(row.request_headers),
    payload: row.payload,
    created_at: iso(row.created_at),
  };
}

const HEADER_ORDER = ['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

function orderedHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of HEADER_ORDER) if (headers[name] !== undefined) out[name] = headers[name];
  for (const [name, value] of Object.entries(headers)) if (out[name] === undefined) out[name] = value;
  return out;
}

export function attemptOf(result: SendResult, trigger: AttemptTrigger): DeliveryAttempt {
  return { at: result.at.toISOString(), response_status: result.responseStatus, duration_ms: result.durationMs, trigger, error: result.error };
}

/** What an attempt needs, read with its claim: the endpoint as projected, and the signing secrets now. */
export interface DispatchTarget {
  url: string;
  enabled: boolean;
  deleted: boolean;
  /**
   * The current secret first, then one in its grace period, as stored (sealed: the dispatcher
   * opens them with its key-encryption key); empty if none is active.
   */
  secrets: StoredSecret[];
}

/** A claimed delivery and its target; target null when the endpoints projection does not have the endpoint (yet). */
export interface ClaimedDelivery extends DeliveryRow {
  target: DispatchTarget | null;
}

/** One automatic attempt to record (see DeliveryStore.recordAutomaticMany). */
export interface AutomaticAttempt {
  row: DeliveryRow;
  token: string;
  result: SendResult;
  now: Date;
}

export interface DeliveryFilters {
  webhook_id?: string;
  status?: DeliveryStatus;
  event_type?: string;
  event_id?: string;
  subject_id?: string;
}

/** A signing secret as the claim returns it (json: its sealed parts in hex). */
interface SecretJson {
  id: string;
  webhook_id: string;
  secret: string | null;
  kek_id: string | null;
  nonce: string | null;
  ciphertext: string | null;
  tag: string | null;
}

const bytes = (hex: string | null): Buffer | null => (hex === null ? null : Buffer.from(hex, 'hex'));

function storedSecret(s: SecretJson): StoredSecret {
  return { id: s.id, webhook_id: s.webhook_id, secret: s.secret, kek_id: s.kek_id, nonce: bytes(s.nonce), ciphertext: bytes(s.ciphertext), tag: bytes(s.tag) };
}

/** SQL over `webhook_deliveries`: claims and attempts for the dispatcher, reads for the API. */
export class DeliveryStore {
  constructor(
    private readonly db: Sql,
    private readonly schedule: readonly number[] = RETRY_SCHEDULE_MS,
  ) {
    if (schedule.length === 0) throw new Error('the retry schedule needs at least one attempt');
  }

  /**
   * Claims due deliveries with a lease: at most `limit`, and at most `perEndpoint` leased at once
   * per endpoint (counting leases held anywhere), taking every endpoint's oldest due delivery
   * before anyone's second (round robin), so a slow or failing endpoint with a backlog never
   * holds the others back. A lease that runs out (a crashed worker) makes the row claimable again.
   *
   * Without ranking the backlog: a skip scan of `webhook_deliveries_due_by_endpoint` (migration
   * 005) finds the endpoints that have retrying deliveries, and for each one reads at most
   * `perEndpoint` minus its live leases of its due, unleased deliveries in index order (oldest
   * first); only those few candidates are ranked. The cost grows with the number of endpoints
   * that have pending deliveries, not with the number of due rows.
   *
   * In the same statement (one snapshot, taken when the claim starts) each claimed delivery comes
   * with what its attempt needs now: its endpoint as the `webhook_endpoints` projection has it
   * (url, enabled, deleted), or null if the projection has not got it yet, and its signing
   * secrets as stored, sealed (current first, then one in its grace period, expired ones left
   * out at `now`; the dispatcher opens them). So a
   * changed URL, a deletion or a rotation recorded before the claim applies to that attempt.
   */
  async claimDue(now: Date, limit: number, perEndpoint: number, leaseMs: number, token: string): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    const { rows } = await this.db.query<DeliveryRow & { target_found: boolean; target_url: string | null; target_enabled: boolean | null; target_deleted: boolean | null; target_secrets: SecretJson[] | null }>(
      `WITH RECURSIVE endpoints AS (
         (SELECT webhook_id FROM webhook_deliveries WHERE status = 'retrying' ORDER BY webhook_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.webhook_id FROM webhook_deliveries d
                  WHERE d.status = 'retrying' AND d.webhook_id > e.webhook_id ORDER BY d.webhook_id LIMIT 1)
           FROM endpoints e WHERE e.webhook_id IS NOT NULL
       ),
       candidates AS (
         SELECT c.id, c.webhook_id, c.next_retry_at,
                row_number() OVER (PARTITION BY c.webhook_id ORDER BY c.next_retry_at, c.id) AS rn
           FROM endpoints e
           CROSS JOIN LATERAL (
             SELECT d.id, d.webhook_id, d.next_retry_at FROM webhook_deliveries d
              WHERE d.webhook_id = e.webhook_id AND d.status = 'retrying' AND d.next_retry_at <= $1::timestamptz
                AND (d.locked_until IS NULL OR d.locked_until <= $1::timestamptz)
              ORDER BY d.next_retry_at, d.id
              LIMIT GREATEST(0, $3::int - (SELECT count(*) FROM webhook_deliveries b
                                            WHERE b.webhook_id = e.webhook_id AND b.status = 'retrying' AND b.locked_until > $1::timestamptz))
           ) c
          WHERE e.webhook_id IS NOT NULL
       ),
       picked AS (
         SELECT id FROM candidates ORDER BY rn, next_retry_at, id LIMIT $2
       ),
       claimed AS (
         UPDATE webhook_deliveries d
            SET locked_until = $1::timestamptz + $4::float8 * interval '1 millisecond', lease_token = $5
           FROM picked p
          WHERE d.id = p.id AND d.status = 'retrying' AND (d.locked_until IS NULL OR d.locked_until <= $1::timestamptz)
         RETURNING ${COLUMNS.split(',')
           .map((c) => `d.${c.trim()}`)
           .join(', ')}
       )
       SELECT c.*, w.id IS NOT NULL AS target_found, w.url AS target_url, w.enabled AS target_enabled,
              w.deleted_at IS NOT NULL AS target_deleted,
              (SELECT json_agg(json_build_object('id', s.id, 'webhook_id', s.webhook_id, 'secret', s.secret, 'kek_id', s.kek_id,
                                                 'nonce', encode(s.nonce, 'hex'), 'ciphertext', encode(s.ciphertext, 'hex'), 'tag', encode(s.tag, 'hex'))
                               ORDER BY s.revision DESC)
                 FROM webhook_secrets s
                WHERE s.webhook_id = c.webhook_id AND s.state = 'active' AND (s.expires_at IS NULL OR s.expires_at > $1::timestamptz)) AS target_secrets
         FROM claimed c LEFT JOIN webhook_endpoints w ON w.id = c.webhook_id`,
      [now, limit, perEndpoint, leaseMs, token],
      'webhooks_claim_due',
    );
    return rows.map(({ target_found, target_url, target_enabled, target_deleted, target_secrets, ...row }) => ({
      ...(row as DeliveryRow),
      target: target_found ? { url: target_url!, enabled: target_enabled!, deleted: target_deleted!, secrets: (target_secrets ?? []).map(storedSecret) } : null,
    }));
  }

  /**
   * Records an automatic attempt of a claimed delivery and moves it along the schedule:
   * succeeded, failed after the last attempt, else retrying at the next step. Fenced by the
   * lease: if the lease was lost meanwhile (another worker took the delivery), only the attempt
   * itself is recorded.
   */
  async recordAutomatic(row: DeliveryRow, token: string, result: SendResult, now: Date): Promise<void> {
    await this.recordAutomaticMany([{ row, token, result, now }]);
  }

  /**
   * recordAutomatic for several attempts in one statement (the dispatcher batches the attempts
   * that end while a write is in flight). Each attempt is applied at most once, fenced by its own
   * lease token, atomically with the others; the attempts whose lease was lost are then recorded
   * one by one as recordAutomatic would. If the statement fails, none of them is recorded (as if
   * each write had failed: the leases run out and the deliveries are attempted again).
   */
  async recordAutomaticMany(attempts: readonly AutomaticAttempt[]): Promise<void> {
    if (attempts.length === 0) return;
    const input = attempts.map(({ row, token, result, now }) => {
      const made = Number(row.automatic_attempts) + 1;
      const final = made >= this.schedule.length;
      return {
        id: row.id,
        token,
        attempt: attemptOf(result, 'automatic'),
        response_status: result.responseStatus,
        duration_ms: result.durationMs,
        request_headers: result.requestHeaders,
        ok: result.ok,
        final,
        next_at: final ? null : new Date(now.getTime() + this.schedule[made]).toISOString(),
        now: now.toISOString(),
      };
    });
    const { rows } = await this.db.query<{ id: string; lease_token: string }>(
      `UPDATE webhook_deliveries d SET
          attempts = (CASE WHEN jsonb_array_length(d.attempts) >= ${ATTEMPTS_KEPT} THEN d.attempts - 0 ELSE d.attempts END) || jsonb_build_array(x.attempt),
          attempt = d.attempt + 1,
          automatic_attempts = d.automatic_attempts + 1,
          response_status = x.response_status, duration_ms = x.duration_ms, request_headers = x.request_headers,
          status = CASE WHEN d.status = 'succeeded' OR x.ok THEN 'succeeded' WHEN x.final THEN 'failed' ELSE 'retrying' END,
          next_retry_at = CASE WHEN d.status = 'succeeded' OR x.ok OR x.final THEN NULL ELSE x.next_at END,
          locked_until = NULL, lease_token = NULL, updated_at = x.now
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, token text, attempt jsonb, response_status integer, duration_ms integer,
              request_headers jsonb, ok boolean, final boolean, next_at timestamptz, now timestamptz)
        WHERE d.id = x.id AND d.lease_token = x.token
       RETURNING d.id, x.token AS lease_token`,
      [JSON.stringify(input)],
      'webhooks_record_automatic',
    );
    const applied = new Set(rows.map((r) => `${r.id} ${r.lease_token}`));
    for (const { row, token, result, now } of attempts) {
      if (!applied.has(`${row.id} ${token}`)) await this.recordOther(row.id, 'automatic', result, now);
    }
  }

  /**
   * Records an attempt outside the schedule (a manual resend, a lost lease): success makes the
   * delivery `succeeded` for good; a failure changes neither its status nor its schedule.
   */
  async recordOther(id: string, trigger: AttemptTrigger, result: SendResult, now: Date): Promise<DeliveryRow | null> {
    const { rows } = await this.db.query<DeliveryRow>(
      `UPDATE webhook_deliveries SET
          attempts = (CASE WHEN jsonb_array_length(attempts) >= ${ATTEMPTS_KEPT} THEN attempts - 0 ELSE attempts END) || $2::jsonb,
          attempt = attempt + 1,
          response_status = $3, duration_ms = $4, request_headers = $5::jsonb,
          status = CASE WHEN $6::boolean THEN 'succeeded' ELSE status END,
          next_retry_at = CASE WHEN $6::boolean THEN NULL ELSE next_retry_at END,
          updated_at = $7
        WHERE id = $1
       RETURNING ${COLUMNS}`,
      [id, JSON.stringify([attemptOf(result, trigger)]), result.responseStatus, result.durationMs, JSON.stringify(result.requestHeaders), result.ok, now],
      'webhooks_record_other',
    );
    return rows[0] ?? null;
  }

  /** Gives a claimed delivery back without counting an attempt (nothing could be tried yet). */
  async release(id: string, token: string, retryAt: Date): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET locked_until = NULL, lease_token = NULL, next_retry_at = GREATEST(next_retry_at, $3::timestamptz)
        WHERE id = $1 AND lease_token = $2`,
      [id, token, retryAt],
    );
  }

  /** Ends a claimed delivery as failed without an attempt (its endpoint was deleted). */
  async abandon(id: string, token: string, now: Date): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET status = 'failed', next_retry_at = NULL, locked_until = NULL, lease_token = NULL, updated_at = $3
        WHERE id = $1 AND lease_token = $2 AND status = 'retrying'`,
      [id, token, now],
    );
  }

  /**
   * A test delivery (POST /webhooks/{id}/test): never claimed by the dispatcher (next_retry_at
   * NULL); `failed` until its one attempt is recorded (so a crash meanwhile leaves no false hope).
   */
  async insertTest(row: { id: string; business_id: string; webhook_id: string; payload: ApiEvent }, now: Date): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_deliveries (id, business_id, webhook_id, event_id, event_type, subject_kind, subject_id, payload, test,
              sort_key, status, next_retry_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::json, true, 'test:' || $1, 'failed', NULL, $9, $9)`,
      [row.id, row.business_id, row.webhook_id, row.payload.id, row.payload.type, row.payload.subject.kind, row.payload.subject.id, JSON.stringify(row.payload), now],
    );
  }

  /** Records a test delivery's one attempt: succeeded or failed, no retries. */
  async recordTest(id: string, result: SendResult, now: Date): Promise<DeliveryRow> {
    const { rows } = await this.db.query<DeliveryRow>(
      `UPDATE webhook_deliveries SET
          attempts = attempts || $2::jsonb, attempt = attempt + 1,
          response_status = $3, duration_ms = $4, request_headers = $5::jsonb,
          status = CASE WHEN $6::boolean THEN 'succeeded' ELSE 'failed' END, next_retry_at = NULL, updated_at = $7
        WHERE id = $1
       RETURNING ${COLUMNS}`,
      [id, JSON.stringify([attemptOf(result, 'test')]), result.responseStatus, result.durationMs, JSON.stringify(result.requestHeaders), result.ok, now],
    );
    return rows[0];
  }

  async get(id: string): Promise<DeliveryRow | null> {
    const { rows } = await this.db.query<DeliveryRow>(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = $1`, [id], 'webhooks_delivery_get');
    return rows[0] ?? null;
  }

  /**
   * A business's deliveries, newest first. `segments`: the first segments of the event types the
   * caller may read (a restricted key), null for all.
   */
  async list(list: string, businessId: string, filters: DeliveryFilters, segments: string[] | null, page: PageRequest): Promise<Page<WebhookDelivery>> {
    const newest = newestFirstPage('sort_key', 8, page);
    const { rows } = await this.db.query<DeliveryRow>(
      `SELECT ${COLUMNS} FROM webhook_deliveries
        WHERE business_id = $1
          AND ($2::text IS NULL OR webhook_id = $2)
          AND ($3::text IS NULL OR status = $3)
          AND ($4::text IS NULL OR event_type = $4)
          AND ($5::text IS NULL OR event_id = $5)
          AND ($6::text IS NULL OR subject_id = $6)
          AND ($7::text[] IS NULL OR split_part(event_type, '.', 1) = ANY($7::text[]))
          ${newest.sql}`,
      [
        businessId,
        filters.webhook_id ?? null,
        filters.status ?? null,
        filters.event_type ?? null,
        filters.event_id ?? null,
        filters.subject_id ?? null,
        segments,
        ...newest.params,
      ],
    );
    const keys = new Map(rows.map((r) => [r.id, r.sort_key]));
    return toPage(list, businessFilters(businessId, cursorFilters(filters)), rows.map(deliveryView), page.limit, (d) => ({ created_at: d.created_at, id: keys.get(d.id)! }));
  }
}

/** The filters a delivery list's cursor is bound to, every key present (pageRequest must get the same). */
export function cursorFilters(filters: DeliveryFilters): Record<string, string | null> {
  return {
    webhook_id: filters.webhook_id ?? null,
    status: filters.status ?? null,
    event_type: filters.event_type ?? null,
    event_id: filters.event_id ?? null,
    subject_id: filters.subject_id ?? null,
  };
}
