/**
 * The one shape of every aggregate's rules (DESIGN "Write side"): a pure `decide` from a command
 * and the state folded from the stream to new events, a pure `evolve` that folds an event into
 * the state, and the state before the first event. Deciders import nothing from NestJS, the
 * database or the clock: time, ids and rates come in through `Context`.
 *
 * `CommandRunner` runs any Decider against the event store; `specification` (test/support)
 * tests any Decider as given events, when command, then events or error.
 */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

export interface Decider<Command, Event extends DomainEvent, State, Context = void> {
  readonly initialState: State;
  decide(command: Command, state: State, context: Context): Event[];
  evolve(state: State, event: Event): State;
  /**
   * A stored event as this decider's event, or null for a type it does not know (an event
   * another version wrote, or another aggregate's in a shared stream): skipped by the fold.
   * Default: every stored event is taken as the decider's.
   */
  readonly fromStored?: (stored: DomainEvent) => Event | null;
}

/** Folds events into a state with a decider's evolve. */
export function foldWith<Event extends DomainEvent, State>(decider: Pick<Decider<unknown, Event, State, never>, 'initialState' | 'evolve' | 'fromStored'>, events: Iterable<DomainEvent>, state: State = decider.initialState): State {
  let current = state;
  for (const stored of events) {
    const event = decider.fromStored ? decider.fromStored(stored) : (stored as Event);
    if (event !== null) current = decider.evolve(current, event);
  }
  return current;
}

/**
 * The `default` of a switch over a decider's event types in `evolve`: a new type left out fails
 * to compile; at run time a stored type this version does not know changes nothing.
 */
export function ignoreUnknown<State>(_event: never, state: State): State {
  return state;
}

/** The `default` of a switch over command types: a new type left out fails to compile, and throws if reached. */
export function unhandled(value: never, what = 'case'): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify((value as { type?: unknown })?.type ?? value)}`);
}

/**
 * A decider's `decide` as a table: one handler a command type, so a type left out fails to
 * compile. Each handler gets the command of its own type.
 */
export type CommandHandlers<Command extends { type: string }, State, Context, Event> = {
  readonly [Type in Command['type']]: (command: Extract<Command, { type: Type }>, state: State, context: Context) => Event[];
};

/** Decides a command with its type's handler; a type no handler takes throws, as `unhandled` does. */
export function decideBy<Command extends { type: string }, State, Context, Event>(
  handlers: CommandHandlers<Command, State, Context, Event>,
  command: Command,
  state: State,
  context: Context,
  what = 'command',
): Event[] {
  if (!Object.hasOwn(handlers, command.type)) return unhandled(command as never, what);
  // the handler of the command's own type
  const handler = handlers[command.type as Command['type']] as (command: Command, state: State, context: Context) => Event[];
  return handler(command, state, context);
}

/**
 * A creation decided on a stream that may hold its aggregate already (`existingId`; null: none
 * yet): true when it holds this very one (a retry of the creation: decide nothing again), false
 * when it holds none (decide the creation). Another aggregate's id there throws: a broken
 * invariant (one aggregate a stream), never a refusal.
 */
export function repeatedCreation(kind: string, existingId: string | null, id: string): boolean {
  if (existingId === null) return false;
  if (existingId === id) return true;
  throw new Error(`${kind} ${id} decided on the stream of ${existingId}`);
}
