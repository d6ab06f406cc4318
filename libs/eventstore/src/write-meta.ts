import { randomUUID } from 'node:crypto';
import { Actor, EventMetadata } from './event-store.port';

/** Who and what caused a write (an API request, the system): becomes the events' metadata. */
export interface WriteMeta {
  actor?: Actor;
  requestId?: string;
  correlationId?: string;
  causationId?: string;
  /**
   * Set when the request runs under an Idempotency-Key (the key's scope, the key and the body,
   * hashed): the same for every run of the same idempotent request. A run can be the second one
   * when the first died after writing and before its response was kept; a handler that creates
   * derives the new object's id and its events' ids from it, so the second run finds the first
   * one's write instead of making another. Not stored in events.
   */
  idempotencySeed?: string;
}

export const SYSTEM_ACTOR: Actor = Object.freeze({ kind: 'system', id: null, name: null });

/**
 * The stored metadata of a write's events: a correlation id (the request's, else a new one), the
 * actor (the system when none), the causation (the causing event, else the request) and the
 * request id. One function, so every capability records the same shape auditors replay.
 */
export function metadataFor(meta: WriteMeta): EventMetadata {
  const metadata: EventMetadata = { correlationId: meta.correlationId ?? meta.requestId ?? randomUUID(), actor: meta.actor ?? SYSTEM_ACTOR };
  const causationId = meta.causationId ?? meta.requestId;
  if (causationId !== undefined) metadata.causationId = causationId;
  if (meta.requestId !== undefined) metadata.requestId = meta.requestId;
  return metadata;
}
