import { Decider, foldWith, ignoreUnknown, unhandled } from '@lib/domain';
import { UrlPolicy, checkWebhookUrl } from '../delivery/url-policy';
import { WebhookEndpointEvent, asWebhookEndpointEvent } from './endpoint.events';
import { WebhookError } from './errors';
import { ALL_EVENT_TYPES, EVENT_TYPES, isEventType, readsEventTypes } from './event-types';

/**
 * The webhook endpoint aggregate's decider: pure functions over the events of one
 * `webhook-<whk_id>` stream. No clock, no randomness, no I/O: the id, the secret's hint, the
 * time and the URL policy come in through the command and the context. The input's shape
 * (strings, an array of strings, a boolean, lengths; texts trimmed) is checked before, by each
 * use case's DTO (app/commands/*); the rules here are the endpoint's: where deliveries may go
 * (the URL policy), which event types exist, whose endpoint it is, what a change changes, and
 * which endpoints a restricted key may subscribe or manage (`readable`: the first segments of
 * the event types the caller reads, null for all — decision 0013, addendum of 2026-11-29).
 */
export type WebhookEndpointState =
  | { status: 'none' }
  | {
      status: 'active';
      id: string;
      businessId: string;
      url: string;
      description: string;
      eventTypes: string[];
      enabled: boolean;
      secretHint: string;
    }
  | { status: 'deleted'; id: string; businessId: string };

export const initialWebhookEndpointState: WebhookEndpointState = Object.freeze({ status: 'none' });

export interface CreateWebhookEndpoint {
  type: 'CreateWebhookEndpoint';
  businessId: string;
  url: string;
  /** At least one (CreateWebhookBody). */
  eventTypes: readonly string[];
  /** Trimmed; none is "". */
  description?: string | null;
  /** Default true. */
  enabled?: boolean;
  secretHint: string;
  /** What the caller reads (`readableTypeSegments`; null: all): it subscribes only to types it can read. */
  readable: readonly string[] | null;
}

export interface UpdateWebhookEndpoint {
  type: 'UpdateWebhookEndpoint';
  businessId: string;
  webhookId: string;
  /** Absent (undefined) fields are left as they are. */
  url?: string;
  eventTypes?: readonly string[];
  description?: string;
  enabled?: boolean;
  /** What the caller reads (null: all): it changes only an endpoint whose types, now and after, it can read. */
  readable: readonly string[] | null;
}

export interface RotateWebhookSecret {
  type: 'RotateWebhookSecret';
  businessId: string;
  webhookId: string;
  secretHint: string;
  previousSecretExpiresAt: Date;
  /** What the caller reads (null: all): it rotates only an endpoint whose types it can read. */
  readable: readonly string[] | null;
}

export interface DeleteWebhookEndpoint {
  type: 'DeleteWebhookEndpoint';
  businessId: string;
  webhookId: string;
}

export type WebhookEndpointCommand = CreateWebhookEndpoint | UpdateWebhookEndpoint | RotateWebhookSecret | DeleteWebhookEndpoint;

export interface WebhookDecideContext {
  urlPolicy: UrlPolicy;
  ids: { webhook(): string };
}

export const DESCRIPTION_MAX = 500;
/** More than every type there is, so `event_types` can list each once. */
export const EVENT_TYPES_MAX = 100;

export function decideWebhookEndpoint(command: WebhookEndpointCommand, state: WebhookEndpointState, ctx: WebhookDecideContext): WebhookEndpointEvent[] {
  switch (command.type) {
    case 'CreateWebhookEndpoint': {
      if (state.status !== 'none') throw new Error(`webhook endpoint ${state.id} already exists`); // ids are ours
      const url = validUrl(command.url, ctx.urlPolicy);
      const eventTypes = validEventTypes(command.eventTypes);
      if (!readsEventTypes(eventTypes, command.readable)) throw cannotSubscribe(eventTypes);
      const description = command.description ?? '';
      const enabled = command.enabled ?? true;
      return [
        {
          type: 'WebhookEndpointCreated',
          data: {
            webhook_id: ctx.ids.webhook(),
            business_id: command.businessId,
            url,
            description,
            event_types: eventTypes,
            enabled,
            secret_hint: command.secretHint,
          },
        },
      ];
    }
    case 'UpdateWebhookEndpoint': {
      const endpoint = manageable(state, command.businessId, command.webhookId, command.readable);
      const changes: Extract<WebhookEndpointEvent, { type: 'WebhookEndpointUpdated' }>['data'] = { webhook_id: endpoint.id };
      if (command.url !== undefined) {
        const url = validUrl(command.url, ctx.urlPolicy);
        if (url !== endpoint.url) changes.url = url;
      }
      if (command.eventTypes !== undefined) {
        const eventTypes = validEventTypes(command.eventTypes);
        if (!readsEventTypes(eventTypes, command.readable)) throw cannotSubscribe(eventTypes);
        if (eventTypes.join(',') !== endpoint.eventTypes.join(',')) changes.event_types = eventTypes;
      }
      if (command.description !== undefined && command.description !== endpoint.description) changes.description = command.description;
      if (command.enabled !== undefined && command.enabled !== endpoint.enabled) changes.enabled = command.enabled;
      return Object.keys(changes).length > 1 ? [{ type: 'WebhookEndpointUpdated', data: changes }] : [];
    }
    case 'RotateWebhookSecret': {
      const endpoint = manageable(state, command.businessId, command.webhookId, command.readable);
      return [
        {
          type: 'WebhookSecretRotated',
          data: { webhook_id: endpoint.id, secret_hint: command.secretHint, previous_secret_expires_at: command.previousSecretExpiresAt.toISOString() },
        },
      ];
    }
    case 'DeleteWebhookEndpoint': {
      const endpoint = existing(state, command.businessId, command.webhookId);
      return [{ type: 'WebhookEndpointDeleted', data: { webhook_id: endpoint.id } }];
    }
    default:
      return unhandled(command, 'webhook endpoint command');
  }
}

export function evolveWebhookEndpoint(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  switch (event.type) {
    case 'WebhookEndpointCreated': {
      const d = event.data;
      return {
        status: 'active',
        id: d.webhook_id,
        businessId: d.business_id,
        url: d.url,
        description: d.description,
        eventTypes: [...d.event_types],
        enabled: d.enabled,
        secretHint: d.secret_hint,
      };
    }
    case 'WebhookEndpointUpdated': {
      if (state.status !== 'active') return state;
      const d = event.data;
      return {
        ...state,
        url: d.url ?? state.url,
        description: d.description ?? state.description,
        eventTypes: d.event_types ? [...d.event_types] : state.eventTypes,
        enabled: d.enabled ?? state.enabled,
      };
    }
    case 'WebhookSecretRotated':
      return state.status === 'active' ? { ...state, secretHint: event.data.secret_hint } : state;
    case 'WebhookEndpointDeleted':
      return state.status === 'none' ? state : { status: 'deleted', id: state.id, businessId: state.businessId };
    default:
      return ignoreUnknown(event, state);
  }
}

/** The webhook endpoint aggregate as one Decider: what CommandRunner runs on `webhook-<whk_id>` streams. */
export const webhookEndpointDecider: Decider<WebhookEndpointCommand, WebhookEndpointEvent, WebhookEndpointState, WebhookDecideContext> = {
  initialState: initialWebhookEndpointState,
  decide: decideWebhookEndpoint,
  evolve: evolveWebhookEndpoint,
  fromStored: asWebhookEndpointEvent,
};

export function foldWebhookEndpoint(events: Iterable<WebhookEndpointEvent>, state: WebhookEndpointState = initialWebhookEndpointState): WebhookEndpointState {
  return foldWith(webhookEndpointDecider, events, state);
}

/** A deleted endpoint, or one of another business, is not found: the API never tells them apart. */
function existing(state: WebhookEndpointState, businessId: string, webhookId: string): Extract<WebhookEndpointState, { status: 'active' }> {
  if (state.status !== 'active' || state.businessId !== businessId) throw new WebhookError('not_found', `No webhook endpoint ${webhookId}.`);
  return state;
}

/**
 * An endpoint the caller may change or rotate: it exists (else 404) and the caller reads every
 * type it is subscribed to (else 403 permission_denied) — a restricted key cannot move, re-key
 * or re-subscribe an endpoint that is sent events it cannot read.
 */
function manageable(state: WebhookEndpointState, businessId: string, webhookId: string, readable: readonly string[] | null): Extract<WebhookEndpointState, { status: 'active' }> {
  const endpoint = existing(state, businessId, webhookId);
  if (!readsEventTypes(endpoint.eventTypes, readable)) throw cannotManage(webhookId);
  return endpoint;
}

/** 403 for an endpoint subscribed to types the caller cannot read (decision 0013, addendum of 2026-11-29). */
export function cannotManage(webhookId: string): WebhookError {
  return new WebhookError('permission_denied', `This key cannot read every event type webhook endpoint ${webhookId} is subscribed to, so it cannot change it, rotate its secret, send it a test or resend its deliveries.`);
}

function cannotSubscribe(eventTypes: readonly string[]): WebhookError {
  const message =
    eventTypes[0] === ALL_EVENT_TYPES
      ? '"*" subscribes to every type: only a key that reads every resource events are about can subscribe to it; list the types this key can read.'
      : `This key cannot read the resource of every type in event_types: a key subscribes only to types whose resource it can read (payment.* needs payments read access, customer.* customers, link.* links, business.* business, wallet_transaction.* wallet).`;
  return new WebhookError('permission_denied', message, 'event_types');
}

/** The URL policy (SSRF rules, delivery/url-policy.ts), as it stands for this deployment. */
function validUrl(value: string, policy: UrlPolicy): string {
  const checked = checkWebhookUrl(value, policy);
  if (!checked.ok) throw new WebhookError('invalid_request', `${checked.reason}.`, 'url'); // the field's name as sent, as the body's other messages begin
  return value;
}

/** Types of the catalogue (or `*` alone), each once; kept in the order of EVENT_TYPES. */
function validEventTypes(value: readonly string[]): string[] {
  const seen = new Set<string>();
  value.forEach((type, i) => {
    if (type === ALL_EVENT_TYPES) return void seen.add(type);
    if (!isEventType(type)) {
      throw new WebhookError(
        'invalid_request',
        `${JSON.stringify(type)} is not an event type; known types: ${EVENT_TYPES.join(', ')} (or "*" for all).`,
        `event_types.${i}`,
      );
    }
    seen.add(type);
  });
  if (seen.has(ALL_EVENT_TYPES)) {
    if (seen.size > 1) throw new WebhookError('invalid_request', '"*" subscribes to every type: send it alone.', 'event_types');
    return [ALL_EVENT_TYPES];
  }
  return EVENT_TYPES.filter((t) => seen.has(t));
}
