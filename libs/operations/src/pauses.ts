import { NETWORK_IDS, NetworkId } from '@lib/chains';
import { Decider, DomainRefusal } from '@lib/domain';
import { Actor, CommandRunner, EventStore, StreamCategory, metadataFor, readStreamOrEmpty, streamCategory } from '@lib/eventstore';

/**
 * Operator pauses (issue 19 B14): an operator stops, for every business, new checkouts, card
 * payments, one network, or sign-ups, and later lets them go again. Durable and recorded as
 * events on one stream (`service-pauses`), with the operator as the events' actor; while a pause
 * holds, the paused action answers 503 `temporarily_unavailable` (§7: "something paused");
 * /health and the metrics show what is paused.
 */

/** What can be paused: new checkouts, card payments, sign-ups, or one network (`network:<id>`). */
export type PauseTarget = 'checkouts' | 'card_payments' | 'signups' | `network:${NetworkId}`;

export const PAUSE_TARGETS: readonly PauseTarget[] = ['checkouts', 'card_payments', 'signups', ...NETWORK_IDS.map((n) => `network:${n}` as const)];

export function isPauseTarget(value: unknown): value is PauseTarget {
  return typeof value === 'string' && (PAUSE_TARGETS as readonly string[]).includes(value);
}

export const SERVICE_STREAM: StreamCategory = streamCategory('service', /pauses/);
export const OPERATION_STREAM_CATEGORIES: readonly StreamCategory[] = [SERVICE_STREAM];
const PAUSES_STREAM = SERVICE_STREAM.stream('pauses');

export type PauseEvent =
  | { type: 'ServicePaused'; data: { target: PauseTarget; reason: string } }
  | { type: 'ServiceResumed'; data: { target: PauseTarget } };

export interface Pause {
  target: PauseTarget;
  reason: string;
  /** When it was paused, and by whom (the operator, from the event's metadata). */
  since: string;
  by: string | null;
}

/** What pause or resume did: `changed` is false when the target already was as asked (no event: the pauses are as they were). */
export interface PauseChange {
  changed: boolean;
  pauses: Pause[];
}

export type PauseCommand = { type: 'Pause'; target: PauseTarget; reason: string } | { type: 'Resume'; target: PauseTarget };

/** Pausing what is paused, or resuming what is not, changes nothing. */
export const pausesDecider: Decider<PauseCommand, PauseEvent, ReadonlyMap<PauseTarget, { reason: string }>> = {
  initialState: new Map(),
  decide(command, state) {
    if (!isPauseTarget(command.target)) throw new DomainRefusal('invalid_request', `What can be paused: ${PAUSE_TARGETS.join(', ')}.`, 'target');
    if (command.type === 'Pause') {
      const reason = command.reason.trim();
      if (reason.length < 1 || reason.length > 500) throw new DomainRefusal('invalid_request', 'A pause needs a reason of 1 to 500 characters.', 'reason');
      return state.has(command.target) ? [] : [{ type: 'ServicePaused', data: { target: command.target, reason } }];
    }
    return state.has(command.target) ? [{ type: 'ServiceResumed', data: { target: command.target } }] : [];
  },
  evolve(state, event) {
    const next = new Map(state);
    if (event.type === 'ServicePaused') next.set(event.data.target, { reason: event.data.reason });
    else next.delete(event.data.target);
    return next;
  },
};

/** How long a process reuses what it read of the pauses (a pause reaches every process within it). */
export const PAUSES_CACHE_MS = 1000;

/**
 * The pauses, read from their stream (one small stream) and kept for PAUSES_CACHE_MS in this
 * process; pause and resume through the CommandRunner. No projection: the stream is the state.
 */
export class ServicePauses {
  private cached: { at: number; pauses: Pause[] } | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly runner: CommandRunner,
    private readonly clock: () => number = Date.now,
  ) {}

  async list(): Promise<Pause[]> {
    const now = this.clock();
    if (this.cached && now - this.cached.at < PAUSES_CACHE_MS) return this.cached.pauses;
    const recorded = await readStreamOrEmpty(this.store, PAUSES_STREAM);
    const active = new Map<PauseTarget, Pause>();
    for (const event of recorded) {
      const data = event.data as { target: PauseTarget; reason?: string };
      if (event.type === 'ServicePaused') active.set(data.target, { target: data.target, reason: data.reason ?? '', since: event.recordedAt.toISOString(), by: event.metadata.actor?.name ?? event.metadata.actor?.id ?? null });
      if (event.type === 'ServiceResumed') active.delete(data.target);
    }
    const pauses = [...active.values()];
    this.cached = { at: now, pauses };
    return pauses;
  }

  /** 503 temporarily_unavailable when any of `targets` is paused. */
  async check(...targets: PauseTarget[]): Promise<void> {
    const pauses = await this.list();
    const hit = pauses.find((p) => targets.includes(p.target));
    if (hit) throw new DomainRefusal('temporarily_unavailable', `${describe(hit.target)} paused by the operator; try again later.`);
  }

  /** Pauses `target`; one already paused stays as it was (its reason too): `changed` false. */
  async pause(target: PauseTarget, reason: string, actor: Actor): Promise<PauseChange> {
    return this.run({ type: 'Pause', target, reason }, actor);
  }

  /** Lets `target` go again; one that is not paused: `changed` false. */
  async resume(target: PauseTarget, actor: Actor): Promise<PauseChange> {
    return this.run({ type: 'Resume', target }, actor);
  }

  private async run(command: PauseCommand, actor: Actor): Promise<PauseChange> {
    const result = await this.runner.run(pausesDecider, PAUSES_STREAM, command, { context: undefined, metadata: metadataFor({ actor }), waitForReadModels: false });
    this.cached = null;
    return { changed: result.appended.length > 0, pauses: await this.list() };
  }
}

function describe(target: PauseTarget): string {
  switch (target) {
    case 'checkouts':
      return 'New checkouts are';
    case 'card_payments':
      return 'Card payments are';
    case 'signups':
      return 'Sign-ups are';
    default:
      return `Payments on ${target.slice('network:'.length)} are`;
  }
}
