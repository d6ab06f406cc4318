import { randomUUID } from 'node:crypto';
import type { Database } from '@lib/database';
import { ConcurrencyError, EventStore, ExpectedRevision, LogPosition, NewEvent, RecordedEvent, StreamNotFoundError, WriteMeta, metadataFor } from '@lib/eventstore';
import { Page, newId, pageRequest, toPage } from '@lib/http';
import {
  WebhookDecideContext,
  WebhookEndpointCommand,
  WebhookEndpointState,
  decideWebhookEndpoint,
  foldWebhookEndpoint,
  initialWebhookEndpointState,
} from '../domain/endpoint.decider';
import { WebhookError } from '../domain/errors';
import { WebhookEndpointEvent, asWebhookEndpointEvent } from '../domain/endpoint.events';
import { WEBHOOK_STREAM } from '../domain/stream-categories';
import { WebhookSecretStore, mintSecret, secretHint } from './secret-store';
import { WebhookEndpoint, WebhookEndpointRow, WebhookEndpointRows, webhookEndpointView } from '../read/views';

/** What the service needs of the projections: read-your-writes waits (ProjectionRunner has it). */
export interface ProjectionWaiter {
  waitFor(position: LogPosition, timeoutMs?: number): Promise<boolean>;
}

/** Who and what a write comes from; stored in each event's metadata. */
export type { WriteMeta } from '@lib/eventstore';

export interface CreateWebhookInput {
  url: unknown;
  event_types: unknown;
  description?: unknown;
  enabled?: unknown;
}

export interface UpdateWebhookInput {
  url?: unknown;
  event_types?: unknown;
  description?: unknown;
  enabled?: unknown;
}

/** The answer of create and rotate: the endpoint and its whole secret, shown this once. */
export type WebhookEndpointWithSecret = WebhookEndpoint & { secret: string };

export interface WebhookEndpointServiceOptions {
  /** WEBHOOK_ALLOW_PRIVATE_URLS. */
  allowPrivateUrls: boolean;
  /** Wall time (tests inject theirs). */
  now?: () => Date;
  /** How long the previous secret still signs after a rotation (default 24 hours). */
  rotationGraceMs?: number;
  /** Longest wait for the projection after a write (default 5000 ms). */
  projectionTimeoutMs?: number;
}

export const DEFAULT_ROTATION_GRACE_MS = 24 * 3600_000;

const WEBHOOK_ID = /^whk_[0-9A-Za-z]{1,64}$/;
const COLUMNS = 'id, business_id, url, description, event_types, enabled, secret_hint, created_at, updated_at, deleted_at';

/**
 * Webhook endpoints: writes go through the endpoint decider into `webhook-<whk_id>` streams
 * (secrets beside them in WebhookSecretStore); reads come from the `webhook_endpoints`
 * projection. Every write waits (bounded) for that projection, so the caller's next read sees
 * it; the write's own answer is built from the stream it appended to.
 */
export class WebhookEndpointService {
  private readonly now: () => Date;
  private readonly rotationGraceMs: number;
  private readonly projectionTimeoutMs: number;

  constructor(
    private readonly store: EventStore,
    private readonly db: Database,
    private readonly projections: ProjectionWaiter,
    readonly secrets: WebhookSecretStore,
    private readonly options: WebhookEndpointServiceOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.rotationGraceMs = options.rotationGraceMs ?? DEFAULT_ROTATION_GRACE_MS;
    this.projectionTimeoutMs = options.projectionTimeoutMs ?? 5000;
  }

  /** Creates an endpoint; its secret is in the answer and, besides, only in webhook_secrets. */
  async create(businessId: string, input: CreateWebhookInput, meta: WriteMeta = {}): Promise<WebhookEndpointWithSecret> {
    const secret = mintSecret();
    const webhookId = newId('whk');
    const events = decideWebhookEndpoint(
      {
        type: 'CreateWebhookEndpoint',
        businessId,
        url: input.url,
        eventTypes: input.event_types,
        description: input.description,
        enabled: input.enabled,
        secretHint: secretHint(secret),
      },
      initialWebhookEndpointState,
      this.context(() => webhookId),
    );
    const secretId = await this.secrets.reserveForNewEndpoint(businessId, webhookId, secret);
    let appended;
    try {
      appended = await this.append(WEBHOOK_STREAM.stream(webhookId), events, 'no_stream', meta);
    } catch (error) {
      await this.secrets.discard(secretId).catch(() => undefined);
      throw error;
    }
    await this.secrets.activate(secretId, appended.nextExpectedRevision, this.now());
    await this.projections.waitFor(appended.position, this.projectionTimeoutMs);
    return { ...(await this.fromStream(webhookId)), secret };
  }

  /** The business's endpoints (deleted ones left out), newest first. */
  async list(businessId: string, query: { limit?: unknown; cursor?: unknown }): Promise<Page<WebhookEndpoint>> {
    const page = pageRequest('webhooks', {}, query);
    const { rows } = await this.db.query<WebhookEndpointRow>(
      `SELECT ${COLUMNS} FROM webhook_endpoints
        WHERE business_id = $1 AND deleted_at IS NULL
          AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::text))
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [businessId, page.after?.created_at ?? null, page.after?.id ?? null, page.limit + 1],
    );
    const views = rows.map(webhookEndpointView);
    return toPage('webhooks', {}, views, page.limit, (v) => ({ created_at: v.created_at, id: v.id }));
  }

  /** One endpoint of the business; 404 not_found for an unknown, deleted or foreign one. */
  async get(businessId: string, webhookId: string): Promise<WebhookEndpoint> {
    const row = await this.row(businessId, webhookId);
    if (!row || row.deleted_at) throw notFound(webhookId);
    return webhookEndpointView(row);
  }

  /** The endpoint row, deleted ones included (null when unknown or another business's). */
  async row(businessId: string, webhookId: string): Promise<WebhookEndpointRow | null> {
    if (!WEBHOOK_ID.test(webhookId)) return null;
    const { rows } = await this.db.query<WebhookEndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1`, [webhookId], 'webhooks_endpoint_row');
    return rows[0] && rows[0].business_id === businessId ? rows[0] : null;
  }

  /** PATCH: only what is sent changes; an unchanged value records nothing. */
  async update(businessId: string, webhookId: string, input: UpdateWebhookInput, meta: WriteMeta = {}): Promise<WebhookEndpoint> {
    await this.change(
      businessId,
      webhookId,
      () => ({
        type: 'UpdateWebhookEndpoint',
        businessId,
        webhookId,
        url: input.url,
        eventTypes: input.event_types,
        description: input.description,
        enabled: input.enabled,
      }),
      meta,
    );
    return this.fromStream(webhookId);
  }

  /** Deletes an endpoint: no new deliveries, pending ones fail, its secrets are forgotten. */
  async delete(businessId: string, webhookId: string, meta: WriteMeta = {}): Promise<WebhookEndpoint & { deleted: true }> {
    const before = await this.change(businessId, webhookId, () => ({ type: 'DeleteWebhookEndpoint', businessId, webhookId }), meta);
    await this.secrets.deleteEndpoint(webhookId);
    return { ...before, deleted: true };
  }

  /**
   * Rotates the signing secret: the new one is in the answer, once; for `rotationGraceMs`
   * deliveries carry the signatures of both, space-separated (Standard Webhooks).
   */
  async rotateSecret(businessId: string, webhookId: string, meta: WriteMeta = {}): Promise<WebhookEndpointWithSecret & { previous_secret_expires_at: string }> {
    const secret = mintSecret();
    const graceUntil = new Date(this.now().getTime() + this.rotationGraceMs);
    let secretId: string | null = null;
    try {
      await this.change(
        businessId,
        webhookId,
        () => ({ type: 'RotateWebhookSecret', businessId, webhookId, secretHint: secretHint(secret), previousSecretExpiresAt: graceUntil }),
        meta,
        async () => {
          secretId ??= await this.secrets.addPending(businessId, webhookId, secret);
        },
        async (revision) => this.secrets.activate(secretId!, revision, graceUntil),
      );
    } catch (error) {
      if (secretId) await this.secrets.discard(secretId).catch(() => undefined);
      throw error;
    }
    return { ...(await this.fromStream(webhookId)), secret, previous_secret_expires_at: graceUntil.toISOString() };
  }

  /**
   * Reads the stream, decides, appends at the revision read (re-reading once on a conflict);
   * `beforeAppend` runs once the command is accepted, `afterAppend` with the new revision.
   * Resolves the endpoint as it was before the change.
   */
  private async change(
    businessId: string,
    webhookId: string,
    command: (state: WebhookEndpointState) => WebhookEndpointCommand,
    meta: WriteMeta,
    beforeAppend?: () => Promise<void>,
    afterAppend?: (revision: number) => Promise<void>,
  ): Promise<WebhookEndpoint> {
    if (!WEBHOOK_ID.test(webhookId)) throw notFound(webhookId);
    const stream = WEBHOOK_STREAM.stream(webhookId);
    for (let attempt = 1; ; attempt++) {
      const recorded = await this.read(stream, webhookId);
      const state = foldWebhookEndpoint(known(recorded));
      const events = decideWebhookEndpoint(command(state), state, this.context(() => webhookId));
      const before = webhookEndpointView(WebhookEndpointRows.of(recorded).endpoints.get(webhookId)!);
      if (events.length === 0) return before;
      await beforeAppend?.();
      try {
        const appended = await this.append(stream, events, recorded[recorded.length - 1].revision, meta);
        await afterAppend?.(appended.nextExpectedRevision);
        await this.projections.waitFor(appended.position, this.projectionTimeoutMs);
        return before;
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt === 1) continue;
        throw error;
      }
    }
  }

  private async fromStream(webhookId: string): Promise<WebhookEndpoint> {
    const rows = WebhookEndpointRows.of(await this.store.readStream(WEBHOOK_STREAM.stream(webhookId)));
    return webhookEndpointView(rows.endpoints.get(webhookId)!);
  }

  private async read(stream: string, webhookId: string): Promise<RecordedEvent[]> {
    try {
      return await this.store.readStream(stream);
    } catch (error) {
      if (error instanceof StreamNotFoundError) throw notFound(webhookId);
      throw error;
    }
  }

  private append(stream: string, events: WebhookEndpointEvent[], expected: ExpectedRevision, meta: WriteMeta) {
    const metadata = metadataFor(meta);
    const batch: NewEvent[] = events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data, metadata }));
    return this.store.append(stream, batch, expected);
  }

  private context(webhook: () => string): WebhookDecideContext {
    return { urlPolicy: { allowPrivate: this.options.allowPrivateUrls }, ids: { webhook } };
  }
}

function known(events: RecordedEvent[]): WebhookEndpointEvent[] {
  return events.map(asWebhookEndpointEvent).filter((e): e is WebhookEndpointEvent => e !== null);
}

function notFound(webhookId: string): WebhookError {
  return new WebhookError('not_found', `No webhook endpoint ${webhookId}.`);
}
