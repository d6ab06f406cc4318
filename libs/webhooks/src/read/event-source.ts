import type { RecordedEvent } from '@lib/eventstore';

/** Who caused an event, as the envelope shows it (spec §6): `kind` (`system`, `api_key`, …), `id`, `name`. */
export interface EventActor {
  kind: string;
  id: string | null;
  name: string | null;
}

/** What a source says one domain event means to the API; the projector adds id, kind and api_version. */
export interface ApiEventDraft {
  /** One of EVENT_TYPES (and one the source declared). */
  type: string;
  /** The object concerned. */
  subject: { kind: string; id: string };
  /** The object as its own endpoint returns it (payments with their metadata). */
  data: Record<string, unknown>;
  business_id: string;
  mode: 'live' | 'test';
  /** Defaults to the domain event's metadata.actor (system when absent). */
  actor?: EventActor;
  /** Defaults to the domain event's recordedAt. */
  created_at?: Date | string;
}

/**
 * What a source keeps of a stream whose later events fold into a view they do not name (a
 * payment's events after PaymentCreated and its customer's view): the key of that view and what
 * the source needs of the stream (JSON values only, like views).
 */
export interface EventSourceLink<L = unknown> {
  view_key: string;
  data: L;
}

/**
 * A pluggable source of API events (spec §6): maps a recorded domain event to zero or more API
 * events. Sources must be deterministic (event data, metadata and recordedAt only, never the
 * clock), because the events projection is rebuilt and verified by replaying the log and the
 * ids of the API events are derived from the domain event ids.
 *
 * A source that needs the whole object (`data` is the object as its endpoint returns it) folds a
 * view of it with `reduce`: the projection keeps that view per key (the event's stream unless
 * `viewKey` says otherwise; table event_source_views, JSON), passes it to `map` as it was before
 * and after the event, and replays it on a rebuild. Views are stored as JSON, so they hold JSON values only (times as
 * ISO strings); what `map` gets is always what a JSON round trip gives.
 *
 * An object whose view also moves with events that do not name it (a customer's stats move with
 * its payments, whose later events name only the payment) folds them through a `link`: the
 * source folds, per stream, the link of that stream to the view (table event_source_links,
 * JSON, replayed on a rebuild like the views); while a stream has a link, its events fold into
 * the view the link names (the event that drops a link, into the view it leaves), and `reduce`
 * gets the link as it was before and after the event.
 */
export interface ApiEventSource<V = unknown, L = unknown> {
  /** Stable name: the key of its views and links. */
  readonly name: string;
  /** The EVENT_TYPES it may emit; emitting another type is a bug and stops the projection. */
  readonly types: readonly string[];
  /** Cheap filter (usually a stream prefix): only these events reach link, viewKey, reduce and map. */
  accepts(event: RecordedEvent): boolean;
  /**
   * Which view the event folds into (default: its own stream), when its stream has no link. A
   * customer's view also takes the PaymentCreated events naming it: the customer source answers
   * `customer-<cst_id>` for those. null: the event has no view (map gets nulls).
   */
  viewKey?(event: RecordedEvent): string | null;
  /**
   * Folds the link of the event's stream (null: the stream has none); omit for a source whose
   * events name their views. An event that ties its stream to a view (a PaymentCreated naming a
   * customer) should name that view with viewKey too, so the view is read with the others.
   */
  link?(link: EventSourceLink<L> | null, event: RecordedEvent): EventSourceLink<L> | null;
  /** Folds the view of the event's stream; omit for a source that needs none. `link`: the stream's, when the source links streams. */
  reduce?(view: V | null, event: RecordedEvent, link?: { before: EventSourceLink<L> | null; after: EventSourceLink<L> | null }): V | null;
  map(event: RecordedEvent, view: { before: V | null; after: V | null }): ApiEventDraft[];
}

/** The actor of a domain event in the envelope's shape. */
export function actorOf(event: RecordedEvent): EventActor {
  const actor = event.metadata?.actor;
  if (!actor || typeof actor.kind !== 'string') return { kind: 'system', id: null, name: null };
  return { kind: actor.kind, id: typeof actor.id === 'string' ? actor.id : null, name: typeof actor.name === 'string' ? actor.name : null };
}
