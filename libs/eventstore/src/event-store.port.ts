import { LogPosition } from './position';

/** Who caused an event: a person, an API key, or the system itself. */
export interface Actor {
  kind: string;
  id: string | null;
  name?: string | null;
}

/**
 * Metadata travels with every event and is part of the stored format.
 * correlationId ties together everything one request set off; causationId names
 * the event or request that directly caused this one.
 */
export interface EventMetadata {
  correlationId?: string;
  causationId?: string;
  actor?: Actor;
  requestId?: string;
  [key: string]: unknown;
}

/** An event as a command produces it, before it is stored. */
export interface NewEvent<Data = unknown> {
  /** UUID chosen by the writer; appending an id already in the stream is a no-op. */
  id: string;
  type: string;
  data: Data;
  metadata?: EventMetadata;
}

/** An event as the store returns it. */
export interface RecordedEvent<Data = unknown> {
  id: string;
  type: string;
  data: Data;
  metadata: EventMetadata;
  stream: string;
  /** 0-based position of the event in its stream. */
  revision: number;
  /** Position in the global log; see position.ts. */
  position: LogPosition;
  recordedAt: Date;
}

/** What the writer believes the stream looks like. */
export type ExpectedRevision = 'no_stream' | 'any' | number;

export interface AppendResult {
  /** Revision of the last event in the stream after the append. */
  nextExpectedRevision: number;
  /** Global position of the last event of this append. */
  position: LogPosition;
  /**
   * The events as stored, when this append wrote them (not when it found them written by an
   * earlier try under the same ids) and the store can tell: what CommandRunner keeps of a stream
   * it wrote to. A store that cannot tell leaves it out.
   */
  recorded?: RecordedEvent[];
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Revision to start at (inclusive). Defaults to the start (forwards) or end (backwards). */
  fromRevision?: number;
  maxCount?: number;
}

/** readAll's page size when `maxCount` is left out, on every adapter. */
export const DEFAULT_READ_ALL_COUNT = 1000;
/** A subscription's batch size when `batchSize` is left out, on every adapter. */
export const DEFAULT_BATCH_SIZE = 500;

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Omit for the start of the log. */
  after?: LogPosition | null;
  /** Default DEFAULT_READ_ALL_COUNT. */
  maxCount?: number;
}

export type BatchHandler = (events: RecordedEvent[]) => Promise<void>;

export interface SubscribeOptions {
  /** Exclusive checkpoint; null or omitted starts at the beginning of the log. */
  after?: LogPosition | null;
  /** Default DEFAULT_BATCH_SIZE. */
  batchSize?: number;
}

export interface Subscription {
  /** Position of the last event whose batch the handler finished. */
  readonly position: LogPosition | null;
  /** Resolves once the subscription has caught up with the log at least once. */
  readonly caughtUp: Promise<void>;
  /** Settles when the subscription ends: resolves on stop(), rejects if the handler or the store failed. */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

export interface EventStore {
  readonly kind: 'embedded' | 'postgres' | 'eventstoredb';
  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Throws StreamNotFoundError when the stream has no events. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** The global log in its stable (commit) order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch up from a checkpoint, then follow live; the handler is awaited one batch at a time. */
  subscribe(handler: BatchHandler, options?: SubscribeOptions): Subscription;
  /** Position of the newest event readers may see, or null for an empty log. */
  headPosition(): Promise<LogPosition | null>;
  /** How many committed events lie after a position (for lag), counting those not yet visible to ordered reads; stops counting at `cap`. */
  countAfter(after: LogPosition | null, cap?: number): Promise<number>;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');
