import { randomUUID } from 'node:crypto';
import { Decider, DomainEvent, foldWith } from '@lib/domain';
import { ConcurrencyError } from './errors';
import { EventMetadata, EventStore, ExpectedRevision, RecordedEvent } from './event-store.port';
import { LogPosition } from './position';
import { KeptStreams } from './kept-streams';
import { readStreamOrEmpty } from './read-stream';

/** Read your writes: resolves true once every read model has applied the log up to `position`. */
export interface ReadModelWaiter {
  waitFor(position: LogPosition, timeoutMs?: number): Promise<boolean>;
  /**
   * Takes a write answered before the read models have it: true when this process promises that
   * its later reads in `scope` wait for it (readBarrier); false when the caller must wait now.
   */
  noteWrite?(scope: string, position: LogPosition): boolean;
  /** Waits for the writes noted in `scope` (null: all of them) before a read. */
  readBarrier?(scope: string | null, timeoutMs?: number): Promise<void>;
  /** Whether readBarrier(scope) has anything to wait for (a cheap check before it). */
  hasUnseenWrites?(scope: string | null): boolean;
}

/** One event a run appended (or found appended under its ids), with the states around it. */
export interface AppendedEvent<Event, State> {
  stream: string;
  eventId: string;
  event: Event;
  before: State;
  after: State;
  metadata: EventMetadata;
}

export interface RunOptions<Event, State, Context> {
  /** What the decider may know of the world: the time, new ids, policies. */
  context: Context;
  /** Stored with every event (correlation, causation, actor, request id, occurredAt …). */
  metadata?: EventMetadata;
  /**
   * Event ids for a command that must be idempotent (process-manager reactions, timers): a
   * second run of the same decision finds its events by these ids and answers with them.
   * Default: random ids.
   */
  eventId?: (index: number) => string;
  /** The stream is new (a freshly minted id): append with no_stream without reading it first. */
  newStream?: boolean;
  /**
   * Append at `any` revision instead of the one read: for a command whose decision cannot be
   * made wrong by anything appended to the stream after the read — it depends only on facts that
   * never revert once recorded and on ids the command itself makes new (e.g. StartSession: the
   * account opened, a fresh session id). Concurrent runs then all land without a conflict to
   * retry. The stream is still read and the decider still decides; the result's `state` is the
   * state read plus this run's events (others appended meanwhile are not in it). Never for a
   * decision that counts, limits or replaces what the stream holds.
   */
  appendAtAnyRevision?: boolean;
  /** Concurrency conflicts answered by reading and deciding again after a short random pause (default 10 attempts in all). */
  maxAttempts?: number;
  /** Runs once the decider accepted the command, before the append (e.g. store a pending secret). */
  beforeAppend?: (events: readonly Event[], state: State) => Promise<void>;
  /** Runs after the append with the stream's new revision (e.g. activate that secret). */
  afterAppend?: (revision: number) => Promise<void>;
  /** Wait until the read models have the appended events (read your writes); default true. */
  waitForReadModels?: boolean;
}

export interface RunResult<Event, State> {
  stream: string;
  /** The state the command was decided on, and the state after its events. */
  before: State;
  state: State;
  /** What this run appended, or what an earlier run of the same decision (same event ids) had appended. */
  appended: AppendedEvent<Event, State>[];
  /** Global position of the last of `appended`; null when the command changed nothing. */
  position: LogPosition | null;
  /** The stream's revision after the run (null: still no stream). */
  revision: number | null;
  /** The stream as read for the decision (without what this run appended). */
  recorded: RecordedEvent[];
}

/**
 * The one way to run a command (DESIGN "Write side"): read the stream, fold it with the
 * decider's evolve, decide, append at the revision read, and on a concurrency conflict read and
 * decide again (bounded), never skip the check — unless the command declares a decision that
 * nothing appended later can make wrong (appendAtAnyRevision). Every event carries the run's metadata. When a
 * decision with deterministic ids finds nothing to do because that very decision was already
 * appended (another process settled it first), the run answers with those events, so whoever
 * asked still sees the consequences and waits for their position. Then, unless told otherwise,
 * it waits until the read models have the appended position (read your writes).
 */
export class CommandRunner {
  private readonly kept: KeptStreams;
  /** Whether the store has answered an append with its recorded events (AppendResult.recorded): only then are streams kept. */
  private storeAnswersRecorded = false;

  constructor(
    private readonly store: EventStore,
    private readonly readModels: ReadModelWaiter | null = null,
    private readonly options: { readYourWritesTimeoutMs?: number; maxAttempts?: number; keptEvents?: number } = {},
  ) {
    this.kept = new KeptStreams(options.keptEvents ?? 2000);
  }

  async run<Command, Event extends DomainEvent, State, Context>(
    decider: Decider<Command, Event, State, Context>,
    stream: string,
    command: Command | ((state: State) => Command),
    options: RunOptions<Event, State, Context>,
  ): Promise<RunResult<Event, State>> {
    const maxAttempts = options.maxAttempts ?? this.options.maxAttempts ?? 10;
    const metadata = options.metadata ?? {};
    // a stream this runner read or wrote last is decided on as it was then (no read) when the
    // decision is appended at its revision: the store refuses it if anything came since
    const mayKeep = !options.appendAtAnyRevision && this.storeAnswersRecorded;
    for (let attempt = 1; ; attempt++) {
      const kept = mayKeep && attempt === 1 && !options.newStream ? this.kept.get(stream) : undefined;
      const recorded = kept ? [...kept] : options.newStream && attempt === 1 ? [] : await this.read(stream);
      if (mayKeep && !kept && recorded.length > 0) this.kept.keep(stream, recorded);
      const before = foldWith(decider, recorded);
      let decided: Event[];
      try {
        decided = decider.decide(typeof command === 'function' ? (command as (state: State) => Command)(before) : command, before, options.context);
      } catch (refusal) {
        if (!kept) throw refusal;
        this.kept.forget(stream); // refused on what was kept: decide again on the stream as it is
        continue;
      }
      if (decided.length === 0 && kept) {
        this.kept.forget(stream); // nothing to do on what was kept: decide again on the stream as it is
        continue;
      }
      if (decided.length === 0) {
        const earlier = options.eventId ? this.alreadyAppended(decider, stream, recorded, options.eventId) : null;
        const result = earlier ?? { stream, before, state: before, appended: [], position: null, revision: recorded.length ? recorded[recorded.length - 1].revision : null, recorded };
        await this.settle(result, options);
        return result;
      }
      await options.beforeAppend?.(decided, before);
      const ids = decided.map((_, i) => (options.eventId ? options.eventId(i) : randomUUID()));
      const expected: ExpectedRevision = options.appendAtAnyRevision ? 'any' : recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1].revision;
      try {
        const appendedAt = await this.store.append(
          stream,
          decided.map((event, i) => ({ id: ids[i], type: event.type, data: event.data, metadata })),
          expected,
        );
        if (appendedAt.recorded) this.storeAnswersRecorded = true;
        if (kept && !appendedAt.recorded) {
          // the store found this decision's ids written already (another process made it): the
          // kept stream was behind, so answer from the stream as it is, like any replay
          this.kept.forget(stream);
          continue;
        }
        if (mayKeep && appendedAt.recorded) this.kept.keep(stream, [...recorded, ...appendedAt.recorded]);
        else this.kept.forget(stream);
        await options.afterAppend?.(appendedAt.nextExpectedRevision);
        const appended: AppendedEvent<Event, State>[] = [];
        let state = before;
        decided.forEach((event, i) => {
          const was = state;
          state = decider.evolve(state, event);
          appended.push({ stream, eventId: ids[i], event, before: was, after: state, metadata });
        });
        const result: RunResult<Event, State> = { stream, before, state, appended, position: appendedAt.position, revision: appendedAt.nextExpectedRevision, recorded };
        await this.settle(result, options);
        return result;
      } catch (error) {
        this.kept.forget(stream);
        if (error instanceof ConcurrencyError && attempt < maxAttempts) {
          // writers that lost a race would meet again at once: a short random pause spreads them (up to 2, 4, … 20 ms)
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * attempt));
          continue;
        }
        throw error;
      }
    }
  }

  /**
   * The state a command on `stream` would be decided on now: the stream read and folded with the
   * decider's evolve (no stream yet: the initial state). For checks made before a run (a refusal
   * before anything is spent), and for reads of a stream's own state.
   */
  async state<Command, Event extends DomainEvent, State, Context>(decider: Decider<Command, Event, State, Context>, stream: string): Promise<State> {
    return foldWith(decider, await this.read(stream));
  }

  /** Waits until the read models have `position` (bounded); false after the timeout. */
  async waitFor(position: LogPosition | null): Promise<boolean> {
    if (!position || !this.readModels) return true;
    return this.readModels.waitFor(position, this.options.readYourWritesTimeoutMs ?? 5000);
  }

  /**
   * Read your writes for a caller that answers from its decided state, not from the read models:
   * where this process applies the projections and serves the reads, the write is noted and the
   * reads of `scope` wait for it instead (ReadModelWaiter.noteWrite); elsewhere it waits now.
   */
  async answeredBeforeReadModels(position: LogPosition | null, scope: string): Promise<void> {
    if (!position || !this.readModels) return;
    if (this.readModels.noteWrite?.(scope, position)) return;
    await this.waitFor(position);
  }

  /** Whether a read in `scope` must pass readBarrier first (writes answered before the read models had them). */
  hasUnseenWrites(scope: string | null): boolean {
    return this.readModels?.hasUnseenWrites?.(scope) ?? false;
  }

  /** Before reading the read models in `scope` (null: a public read): waits for the writes answered before they had them. */
  async readBarrier(scope: string | null): Promise<void> {
    await this.readModels?.readBarrier?.(scope, this.options.readYourWritesTimeoutMs ?? 5000);
  }

  private async settle(result: RunResult<unknown, unknown>, options: { waitForReadModels?: boolean }): Promise<void> {
    if (options.waitForReadModels !== false) await this.waitFor(result.position);
  }

  private read(stream: string): Promise<RecordedEvent[]> {
    return readStreamOrEmpty(this.store, stream);
  }

  /** The events a decision with these ids appended earlier (consecutive: one append), with their states. */
  private alreadyAppended<Command, Event extends DomainEvent, State, Context>(
    decider: Decider<Command, Event, State, Context>,
    stream: string,
    recorded: RecordedEvent[],
    eventId: (index: number) => string,
  ): RunResult<Event, State> | null {
    const first = recorded.findIndex((e) => e.id === eventId(0));
    if (first < 0) return null;
    const before = foldWith(decider, recorded.slice(0, first));
    const appended: AppendedEvent<Event, State>[] = [];
    let state = before;
    for (let i = 0; first + i < recorded.length && recorded[first + i].id === eventId(i); i++) {
      const stored = recorded[first + i];
      const event = decider.fromStored ? decider.fromStored(stored) : (stored as unknown as Event);
      if (event === null) break;
      const was = state;
      state = decider.evolve(state, { type: event.type, data: event.data } as Event);
      appended.push({ stream, eventId: stored.id, event: { type: event.type, data: event.data } as Event, before: was, after: state, metadata: stored.metadata });
    }
    if (appended.length === 0) return null;
    return { stream, before, state: foldWith(decider, recorded), appended, position: recorded[first + appended.length - 1].position, revision: recorded[recorded.length - 1].revision, recorded };
  }
}
