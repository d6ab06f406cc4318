import type { Sql } from '@lib/database';
import { ignoreUnknown } from '@lib/domain';
import { LogPosition, RecordedEvent, comparePositions, formatPosition, parsePosition } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import { asWebhookEndpointEvent } from '../domain/endpoint.events';
import { ApiEventDraft, ApiEventSource, EventActor, EventSourceLink, actorOf } from './event-source';
import { ALL_EVENT_TYPES, API_VERSION, EVENT_TYPES, apiEventId, deliveryId } from '../domain/event-types';

/** The event envelope (spec §6): the payload of a delivery and what GET /events returns. */
export interface ApiEvent {
  id: string;
  kind: 'event';
  type: string;
  subject: { kind: string; id: string };
  data: Record<string, unknown>;
  actor: EventActor;
  mode: 'live' | 'test';
  api_version: string;
  created_at: string;
}

export interface EventsProjectorOptions {
  /** Projection name (default `events`); also the key of its outbox horizon. */
  name?: string;
}

interface Subscription {
  webhook_id: string;
  business_id: string;
  event_types: string[];
  enabled: boolean;
}

/**
 * The `events` projection and the webhook outbox (issue 5 points 2 and 3).
 *
 * Owned tables (dropped and replayed by a rebuild, compared by verify):
 * - `events`: every API event the sources give, with its envelope (GET /events);
 * - `event_source_views`: each source's view of each object (ApiEventSource.reduce, keyed by
 *   stream unless the source's viewKey or a link says otherwise);
 * - `event_source_links`: each source's links of streams to the views their events fold into
 *   (ApiEventSource.link: a payment's later events and its customer's view);
 * - `event_subscriptions`: which endpoint wants which types, folded from `webhook-` streams in
 *   log order, so who gets an event is decided by the log alone (not by another projection that
 *   may be ahead or behind).
 *
 * The outbox: for each API event, one row in `webhook_deliveries` per subscribed, enabled
 * endpoint of its business, with a deterministic id and ON CONFLICT DO NOTHING. That table and
 * `webhook_outbox_horizon` are not owned (migration 004): deliveries are decided only for log
 * positions past the horizon, which moves forward in the same transaction as the checkpoint. A
 * restart re-applies nothing (checkpoints), and a rebuild or a verify replays the past without
 * creating a delivery for it, not even one a fixed source would now give.
 */
export function eventsProjector(sources: readonly ApiEventSource[], options: EventsProjectorOptions = {}): Projector {
  const name = options.name ?? 'events';
  const names = new Set<string>();
  for (const source of sources) {
    if (names.has(source.name)) throw new Error(`two event sources are named ${source.name}`);
    names.add(source.name);
    const unknown = source.types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
    if (unknown.length) throw new Error(`event source ${source.name} declares types that are not in EVENT_TYPES: ${unknown.join(', ')}`);
  }
  return {
    name,
    tables: ['events', 'event_source_views', 'event_source_links', 'event_subscriptions'],
    schema: `
      CREATE TABLE IF NOT EXISTS events (
        id              text        PRIMARY KEY,
        business_id     text        NOT NULL,
        type            text        NOT NULL,
        subject_kind    text        NOT NULL,
        subject_id      text        NOT NULL,
        mode            text        NOT NULL,
        created_at      timestamptz NOT NULL,
        -- log order (position, then the order the source gave): ties of created_at sort by it
        seq             text        NOT NULL,
        source_event_id text        NOT NULL,
        -- the envelope's JSON text as delivered (text, not jsonb: key order kept; comparable by verify)
        payload         text        NOT NULL
      );
      CREATE INDEX IF NOT EXISTS events_business ON events (business_id, created_at DESC, seq DESC);
      CREATE INDEX IF NOT EXISTS events_subject ON events (subject_id, created_at DESC, seq DESC);
      CREATE TABLE IF NOT EXISTS event_source_views (
        source   text  NOT NULL,
        view_key text  NOT NULL,
        -- JSON text, not jsonb: jsonb reorders keys, and the API objects built from a view must be
        -- byte-identical whether it was folded in one batch or reloaded between batches (verify)
        view     text,
        PRIMARY KEY (source, view_key)
      );
      CREATE TABLE IF NOT EXISTS event_source_links (
        source   text  NOT NULL,
        stream   text  NOT NULL,
        -- the view the stream's events fold into, and what the source keeps of the stream (JSON text)
        view_key text  NOT NULL,
        data     text,
        PRIMARY KEY (source, stream)
      );
      CREATE TABLE IF NOT EXISTS event_subscriptions (
        webhook_id  text    PRIMARY KEY,
        business_id text    NOT NULL,
        event_types jsonb   NOT NULL,
        enabled     boolean NOT NULL
      );
      CREATE INDEX IF NOT EXISTS event_subscriptions_business ON event_subscriptions (business_id);
    `,
    handle: (events, tx) => handle(name, sources, events, tx),
  };
}

type Step =
  | { kind: 'webhook'; event: RecordedEvent }
  | { kind: 'events'; event: RecordedEvent; rows: { envelope: ApiEvent; business_id: string; seq: string }[] };

async function handle(name: string, sources: readonly ApiEventSource[], events: RecordedEvent[], tx: Sql): Promise<void> {
  // 1. the links and views the sources fold, loaded in one query
  const views = new Map<string, { view: unknown; dirty: boolean }>();
  const links = new Map<string, { link: EventSourceLink | null; dirty: boolean }>();
  const key = (source: string, viewKey: string) => `${source}\u0000${viewKey}`;
  const wanted = new Map<string, [string, string]>();
  const wantedLinks = new Map<string, [string, string]>();
  const directKey = (source: ApiEventSource, event: RecordedEvent) => (source.viewKey ? source.viewKey(event) : event.stream);
  for (const event of events) {
    for (const source of sources) {
      if (!source.accepts(event)) continue;
      if (source.link) wantedLinks.set(key(source.name, event.stream), [source.name, event.stream]);
      if (!source.reduce) continue;
      const viewKey = directKey(source, event);
      if (viewKey !== null) wanted.set(key(source.name, viewKey), [source.name, viewKey]);
    }
  }
  await loadState(tx, wanted, wantedLinks, views, links, key);

  // each event's links (before and after it) and view key, in log order; views named only by a
  // link made in this batch are read now (a source's viewKey usually names them already)
  const linked = new Map<string, { before: EventSourceLink | null; after: EventSourceLink | null }>();
  const viewKeys = new Map<string, string | null>();
  const late = new Map<string, [string, string]>();
  events.forEach((event, i) => {
    for (const source of sources) {
      if (!source.accepts(event)) continue;
      const at = `${i}\u0000${source.name}`;
      let linkedKey: string | null = null;
      if (source.link) {
        const k = key(source.name, event.stream);
        const before = links.get(k)?.link ?? null;
        const after = jsonRoundTrip(source.link(before, event));
        if (JSON.stringify(after) !== JSON.stringify(before)) links.set(k, { link: after, dirty: true });
        linked.set(at, { before, after });
        // the view the link names after the event, or the one it leaves when the event drops it
        linkedKey = after?.view_key ?? before?.view_key ?? null;
      }
      if (!source.reduce) continue;
      const viewKey = linkedKey ?? directKey(source, event);
      viewKeys.set(at, viewKey);
      if (viewKey !== null && !views.has(key(source.name, viewKey))) late.set(key(source.name, viewKey), [source.name, viewKey]);
    }
  });
  if (late.size > 0) await loadState(tx, late, new Map(), views, links, key);

  // 2. API events, in log order
  const steps: Step[] = [];
  const eventRows: { envelope: ApiEvent; business_id: string; source_event_id: string; seq: string }[] = [];
  for (const [i, event] of events.entries()) {
    if (asWebhookEndpointEvent(event)) steps.push({ kind: 'webhook', event });
    const drafts: ApiEventDraft[] = [];
    for (const source of sources) {
      if (!source.accepts(event)) continue;
      let before: unknown = null;
      let after: unknown = null;
      const at = `${i}\u0000${source.name}`;
      const viewKey = source.reduce ? (viewKeys.get(at) ?? null) : null;
      if (source.reduce && viewKey !== null) {
        const k = key(source.name, viewKey);
        before = views.get(k)?.view ?? null;
        after = jsonRoundTrip(source.reduce(before, event, linked.get(at) ?? { before: null, after: null }));
        views.set(k, { view: after, dirty: true });
      }
      for (const draft of source.map(event, { before, after })) {
        if (!source.types.includes(draft.type)) throw new Error(`event source ${source.name} emitted ${draft.type}, a type it does not declare`);
        drafts.push(draft);
      }
    }
    if (drafts.length === 0) continue;
    const occurrences = new Map<string, number>();
    const rows = drafts.map((draft, index) => {
      const n = occurrences.get(draft.type) ?? 0;
      occurrences.set(draft.type, n + 1);
      const envelope: ApiEvent = {
        id: apiEventId(event.id, draft.type, n),
        kind: 'event',
        type: draft.type,
        subject: { kind: draft.subject.kind, id: draft.subject.id },
        data: draft.data,
        actor: draft.actor ?? actorOf(event),
        mode: draft.mode,
        api_version: API_VERSION,
        created_at: new Date(draft.created_at ?? event.recordedAt).toISOString(),
      };
      const seq = sequenceOf(event.position, index);
      eventRows.push({ envelope, business_id: draft.business_id, source_event_id: event.id, seq });
      return { envelope, business_id: draft.business_id, seq };
    });
    steps.push({ kind: 'events', event, rows });
  }

  // the rows, the views and the outbox's horizon do not depend on each other: sent together (one
  // connection answers them in order, so a failure is the first rejection, the others 25P02)
  const insertEvents =
    eventRows.length > 0 &&
    tx.query(
      `INSERT INTO events (id, business_id, type, subject_kind, subject_id, mode, created_at, seq, source_event_id, payload)
       SELECT r.id, r.business_id, r.type, r.subject_kind, r.subject_id, r.mode, r.created_at, r.seq, r.source_event_id, r.payload
         FROM jsonb_to_recordset($1::jsonb) AS r(id text, business_id text, type text, subject_kind text, subject_id text,
              mode text, created_at timestamptz, seq text, source_event_id text, payload text)`,
      [
        JSON.stringify(
          eventRows.map(({ envelope: e, business_id, source_event_id, seq }) => ({
            id: e.id,
            business_id,
            type: e.type,
            subject_kind: e.subject.kind,
            subject_id: e.subject.id,
            mode: e.mode,
            created_at: e.created_at,
            seq,
            source_event_id,
            payload: JSON.stringify(e),
          })),
        ),
      ],
    );
  const dirtyViews = [...views.entries()].filter(([, v]) => v.dirty);
  const upsertViews =
    dirtyViews.length > 0 &&
    tx.query(
      `INSERT INTO event_source_views (source, view_key, view)
       SELECT r.source, r.view_key, r.view FROM jsonb_to_recordset($1::jsonb) AS r(source text, view_key text, view text)
       ON CONFLICT (source, view_key) DO UPDATE SET view = excluded.view`,
      [JSON.stringify(dirtyViews.map(([k, v]) => ({ source: k.split('\u0000')[0], view_key: k.split('\u0000')[1], view: v.view === null ? null : JSON.stringify(v.view) })))],
    );
  const dirtyLinks = [...links.entries()].filter(([, l]) => l.dirty);
  const keptLinks = dirtyLinks.filter(([, l]) => l.link !== null);
  const droppedLinks = dirtyLinks.filter(([, l]) => l.link === null);
  const upsertLinks =
    keptLinks.length > 0 &&
    tx.query(
      `INSERT INTO event_source_links (source, stream, view_key, data)
       SELECT r.source, r.stream, r.view_key, r.data FROM jsonb_to_recordset($1::jsonb) AS r(source text, stream text, view_key text, data text)
       ON CONFLICT (source, stream) DO UPDATE SET view_key = excluded.view_key, data = excluded.data`,
      [
        JSON.stringify(
          keptLinks.map(([k, l]) => ({ source: k.split('\u0000')[0], stream: k.split('\u0000')[1], view_key: l.link!.view_key, data: JSON.stringify(l.link!.data ?? null) })),
        ),
      ],
    );
  const deleteLinks =
    droppedLinks.length > 0 &&
    tx.query(`DELETE FROM event_source_links l USING unnest($1::text[], $2::text[]) AS d(source, stream) WHERE l.source = d.source AND l.stream = d.stream`, [
      droppedLinks.map(([k]) => k.split('\u0000')[0]),
      droppedLinks.map(([k]) => k.split('\u0000')[1]),
    ]);
  const [, , , , outbox] = await Promise.all([insertEvents, upsertViews, upsertLinks, deleteLinks, outboxState(name, tx, events)]);

  // 3. subscriptions and the outbox, in log order
  const webhookSteps = steps.filter((s) => s.kind === 'webhook');
  if (webhookSteps.length === 0 && (!outbox.live || !steps.some((s) => s.kind === 'events' && outbox.decides(s.event.position)))) {
    await outbox.advance();
    return;
  }
  const webhookIds = webhookSteps.map((s) => (s.event.data as { webhook_id: string }).webhook_id);
  const businesses = steps.flatMap((s) => (s.kind === 'events' ? s.rows.map((r) => r.business_id) : []));
  const { rows: found } = await tx.query<Subscription>(
    `SELECT webhook_id, business_id, event_types, enabled FROM event_subscriptions
      WHERE webhook_id = ANY($1::text[]) OR business_id = ANY($2::text[])`,
    [webhookIds, [...new Set(businesses)]],
  );
  const subscriptions = new Map(found.map((s) => [s.webhook_id, s]));
  const changed = new Set<string>();
  const deliveries: Record<string, unknown>[] = [];
  for (const step of steps) {
    if (step.kind === 'webhook') {
      const id = applySubscription(subscriptions, step.event);
      if (id) changed.add(id);
      continue;
    }
    if (!outbox.decides(step.event.position)) continue;
    for (const { envelope, business_id, seq } of step.rows) {
      for (const sub of subscriptions.values()) {
        if (sub.business_id !== business_id || !sub.enabled) continue;
        if (!sub.event_types.includes(ALL_EVENT_TYPES) && !sub.event_types.includes(envelope.type)) continue;
        deliveries.push({
          id: deliveryId(envelope.id, sub.webhook_id),
          business_id,
          webhook_id: sub.webhook_id,
          event_id: envelope.id,
          event_type: envelope.type,
          subject_kind: envelope.subject.kind,
          subject_id: envelope.subject.id,
          payload: JSON.stringify(envelope),
          sort_key: `${seq}:${sub.webhook_id}`,
          // delivery times are wall time (the dispatcher's clock), even when the event's own
          // created_at is a simulated business's test clock: a test clock never delays a delivery
          next_retry_at: step.event.recordedAt.toISOString(),
          created_at: step.event.recordedAt.toISOString(),
        });
      }
    }
  }
  const upserts = [...changed].filter((id) => subscriptions.has(id)).map((id) => subscriptions.get(id)!);
  const removed = [...changed].filter((id) => !subscriptions.has(id));
  // independent writes, sent together (see above)
  await Promise.all([
    upserts.length > 0 &&
      tx.query(
        `INSERT INTO event_subscriptions (webhook_id, business_id, event_types, enabled)
         SELECT r.webhook_id, r.business_id, r.event_types, r.enabled
           FROM jsonb_to_recordset($1::jsonb) AS r(webhook_id text, business_id text, event_types jsonb, enabled boolean)
         ON CONFLICT (webhook_id) DO UPDATE SET event_types = excluded.event_types, enabled = excluded.enabled`,
        [JSON.stringify(upserts)],
      ),
    removed.length > 0 && tx.query(`DELETE FROM event_subscriptions WHERE webhook_id = ANY($1::text[])`, [removed]),
    deliveries.length > 0 &&
      tx.query(
        `INSERT INTO public.webhook_deliveries (id, business_id, webhook_id, event_id, event_type, subject_kind, subject_id, payload,
                sort_key, status, next_retry_at, created_at, updated_at)
         SELECT r.id, r.business_id, r.webhook_id, r.event_id, r.event_type, r.subject_kind, r.subject_id, r.payload::json,
                r.sort_key, 'retrying', r.next_retry_at, r.created_at, r.created_at
           FROM jsonb_to_recordset($1::jsonb) AS r(id text, business_id text, webhook_id text, event_id text, event_type text,
                subject_kind text, subject_id text, payload text, sort_key text, next_retry_at timestamptz, created_at timestamptz)
         ON CONFLICT DO NOTHING`,
        [JSON.stringify(deliveries)],
      ),
    outbox.advance(),
  ]);
}

/**
 * Reads the wanted links (source, stream) and views (source, view key) into the maps, with the
 * views the stored links name, in one query. What is not stored stays absent (a null view).
 */
async function loadState(
  tx: Sql,
  wanted: Map<string, [string, string]>,
  wantedLinks: Map<string, [string, string]>,
  views: Map<string, { view: unknown; dirty: boolean }>,
  links: Map<string, { link: EventSourceLink | null; dirty: boolean }>,
  key: (source: string, viewKey: string) => string,
): Promise<void> {
  if (wanted.size === 0 && wantedLinks.size === 0) return;
  const pairs = [...wanted.values()];
  const linkPairs = [...wantedLinks.values()];
  const { rows } = await tx.query<{ kind: 'view' | 'link'; source: string; key: string; view_key: string | null; value: unknown }>(
    `WITH l AS (
       SELECT k.source, k.stream, k.view_key, k.data FROM event_source_links k
         JOIN unnest($3::text[], $4::text[]) AS w(source, stream) ON w.source = k.source AND w.stream = k.stream
     ), w AS (
       SELECT source, view_key FROM unnest($1::text[], $2::text[]) AS w(source, view_key)
       UNION SELECT source, view_key FROM l
     )
     SELECT 'view' AS kind, v.source, v.view_key AS key, NULL AS view_key, v.view AS value
       FROM event_source_views v JOIN w ON w.source = v.source AND w.view_key = v.view_key
     UNION ALL
     SELECT 'link', l.source, l.stream, l.view_key, l.data FROM l`,
    [pairs.map((p) => p[0]), pairs.map((p) => p[1]), linkPairs.map((p) => p[0]), linkPairs.map((p) => p[1])],
  );
  const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
  for (const row of rows) {
    if (row.kind === 'view') views.set(key(row.source, row.key), { view: parsed(row.value), dirty: false });
    else links.set(key(row.source, row.key), { link: { view_key: row.view_key!, data: parsed(row.value) }, dirty: false });
  }
  // what was looked for and is not stored is known to be absent (not read again)
  const absent = [...wanted.keys(), ...rows.filter((r) => r.kind === 'link').map((r) => key(r.source, r.view_key!))];
  for (const k of absent) if (!views.has(k)) views.set(k, { view: null, dirty: false });
}

/** Applies a webhook stream event to the subscriptions; resolves the endpoint id it touched. */
function applySubscription(subscriptions: Map<string, Subscription>, event: RecordedEvent): string | null {
  const known = asWebhookEndpointEvent(event);
  if (!known) return null;
  const id = known.data.webhook_id;
  switch (known.type) {
    case 'WebhookEndpointCreated':
      subscriptions.set(id, { webhook_id: id, business_id: known.data.business_id, event_types: [...known.data.event_types], enabled: known.data.enabled });
      return id;
    case 'WebhookEndpointUpdated': {
      const sub = subscriptions.get(id);
      if (!sub) return null;
      if (known.data.event_types !== undefined) sub.event_types = [...known.data.event_types];
      if (known.data.enabled !== undefined) sub.enabled = known.data.enabled;
      return id;
    }
    case 'WebhookEndpointDeleted':
      return subscriptions.delete(id) ? id : null;
    case 'WebhookSecretRotated':
      return null; // who gets what does not change
    default:
      return ignoreUnknown(known, null);
  }
}

/**
 * Where the outbox stands. Deliveries are decided only in the live schema (a verify replays into
 * a scratch schema and must have no effect outside it) and only past the horizon.
 */
async function outboxState(name: string, tx: Sql, events: RecordedEvent[]) {
  // one round trip: is this the live schema (not a rebuild's scratch one), and if so the horizon, locked
  const { rows } = await tx.query<{ live: boolean; position: string | null }>(
    `WITH s AS (SELECT current_schema() = 'public' AS live)
     SELECT s.live, h.position FROM s LEFT JOIN LATERAL
       (SELECT position FROM public.webhook_outbox_horizon WHERE name = $1 AND s.live FOR UPDATE) h ON true`,
    [name],
  );
  const live = rows[0]?.live === true;
  const horizon: LogPosition | null = live && rows[0].position !== null ? parsePosition(rows[0].position) : null;
  const last = events[events.length - 1].position;
  return {
    live,
    decides: (position: LogPosition) => live && (horizon === null || comparePositions(position, horizon) > 0),
    async advance(): Promise<void> {
      if (!live || (horizon !== null && comparePositions(last, horizon) <= 0)) return;
      await tx.query(
        `INSERT INTO public.webhook_outbox_horizon (name, position, updated_at) VALUES ($1, $2, now())
         ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
        [name, formatPosition(last)],
      );
    },
  };
}

/** Sorts like the log: position, then the order of the API events one domain event gave. */
export function sequenceOf(position: LogPosition, index: number): string {
  return `${position.commit.toString().padStart(20, '0')}.${position.prepare.toString().padStart(20, '0')}.${String(index).padStart(4, '0')}`;
}

function jsonRoundTrip<T>(value: T): T | null {
  return value === undefined || value === null ? null : (JSON.parse(JSON.stringify(value)) as T);
}
