import {
  CHECKOUT_STREAM,
  CheckoutCommand,
  CheckoutEvent,
  CheckoutState,
  OpenCryptoCheckout,
  PAYMENT_STREAM,
  PaymentCommand,
  PaymentEvent,
  PaymentState,
  Reaction,
  RecordedPaymentEvent,
  decideCheckout,
  decidePayment,
  evolveCheckout,
  evolvePayment,
  initialCheckoutState,
  initialPaymentState,
  react,
  reactionEventId,
  timeline,
  uuidv5,
} from '../../libs/payments/src/domain';

/**
 * In-memory integration harness (tests only): two maps of streams, commands decided through the
 * right decider, events appended idempotently by id (as the store does), and every new event fed
 * through `react` until nothing more happens. Time is set by the test.
 */
export interface Stored<E> {
  id: string;
  event: E;
  recordedAt: string;
  causationId: string | null;
}

type Target = { target: 'payment'; id: string; command: PaymentCommand } | { target: 'checkout'; id: string; command: CheckoutCommand };
/** A command to run: from outside (no cause) or a reaction's. */
type Command = Target & { commandId: string; causationId: string | null };
type Appended = { stream: string; stored: Stored<CheckoutEvent> | Stored<PaymentEvent> };

export const REMAINDER_ADDRESS = '0x' + '22'.repeat(20);

export class Harness {
  readonly payments = new Map<string, Stored<PaymentEvent>[]>();
  readonly checkouts = new Map<string, Stored<CheckoutEvent>[]>();
  /** Every event in append order (the global log). */
  readonly log: Appended[] = [];
  now: Date;
  private counter = 0;

  constructor(now: Date) {
    this.now = now;
  }

  at(now: Date): this {
    this.now = now;
    return this;
  }

  payment(paymentId: string, command: PaymentCommand): PaymentEvent[] {
    return this.run({ target: 'payment', id: paymentId, command }) as PaymentEvent[];
  }

  checkout(checkoutId: string, command: CheckoutCommand): CheckoutEvent[] {
    return this.run({ target: 'checkout', id: checkoutId, command }) as CheckoutEvent[];
  }

  paymentState(paymentId: string): PaymentState {
    return (this.payments.get(paymentId) ?? []).reduce((s, e) => evolvePayment(s, e.event), initialPaymentState);
  }

  checkoutState(checkoutId: string): CheckoutState {
    return (this.checkouts.get(checkoutId) ?? []).reduce((s, e) => evolveCheckout(s, e.event), initialCheckoutState);
  }

  paymentEvents(paymentId: string): PaymentEvent[] {
    return (this.payments.get(paymentId) ?? []).map((e) => e.event);
  }

  checkoutEvents(checkoutId: string): CheckoutEvent[] {
    return (this.checkouts.get(checkoutId) ?? []).map((e) => e.event);
  }

  timeline(paymentId: string): string[] {
    const recorded: RecordedPaymentEvent[] = (this.payments.get(paymentId) ?? []).map((e) => ({ ...e.event, recorded_at: e.recordedAt }));
    return timeline(recorded).map((e) => e.type);
  }

  /**
   * Feeds every stored event through `react` again (each with its stream's state before it) and
   * applies the reactions with their derived event ids. Returns how many events were appended.
   */
  replay(): number {
    const before = this.log.length;
    for (const { stream, stored } of [...this.log]) {
      for (const reaction of this.reactionsTo(stream, stored)) this.settle([this.targetOf(reaction)]);
    }
    return this.log.length - before;
  }

  /** A command from outside (HTTP, a timer, a chain watcher): event ids from a counter. */
  private run(target: Target): (PaymentEvent | CheckoutEvent)[] {
    const commandId = uuidv5(`external#${++this.counter}`);
    return this.settle([{ ...target, commandId, causationId: null }]);
  }

  /** What the process manager does on a stored event of `stream`, given its stream's state before it. */
  reactionsTo(stream: string, stored: Stored<CheckoutEvent> | Stored<PaymentEvent>): Reaction[] {
    return react(stored.event, this.contextFor(stream, stored));
  }

  /**
   * The events a reaction's command would append now, without appending them: decided on its
   * target's current state, less those whose derived ids the target stream holds already.
   */
  wouldAppend(reaction: Reaction): (PaymentEvent | CheckoutEvent)[] {
    const command = this.targetOf(reaction);
    return this.decide(command, command.commandId).map((e) => e.event);
  }

  private settle(queue: Command[]): (PaymentEvent | CheckoutEvent)[] {
    const first: (PaymentEvent | CheckoutEvent)[] = [];
    let firstDone = false;
    while (queue.length > 0) {
      const next = queue.shift()!;
      const appended = this.apply(next, next.commandId, next.causationId);
      if (!firstDone) first.push(...appended.map((s) => s.stored.event));
      firstDone = true;
      for (const { stream, stored } of appended) {
        for (const reaction of this.reactionsTo(stream, stored)) queue.push(this.targetOf(reaction));
      }
    }
    return first;
  }

  private targetOf(reaction: Reaction): Command {
    const base = { commandId: reaction.id, causationId: reaction.causationId };
    switch (reaction.target) {
      case 'payment':
        return { ...base, target: 'payment', id: reaction.paymentId, command: reaction.command };
      case 'checkout':
        return { ...base, target: 'checkout', id: reaction.checkoutId, command: reaction.command };
      case 'open_checkout': {
        // The caller's part: reserve an address, read the business's settings.
        const command: OpenCryptoCheckout = { ...reaction.command, address: REMAINDER_ADDRESS, simulated: true, quoteTtlMs: 15 * 60_000 };
        return { ...base, target: 'checkout', id: reaction.checkoutId, command };
      }
    }
  }

  /** The state of the event's stream folded up to, not including, the event. */
  private contextFor(stream: string, stored: Stored<CheckoutEvent> | Stored<PaymentEvent>) {
    const checkoutId = CHECKOUT_STREAM.parse(stream);
    if (checkoutId !== null) {
      const events = this.checkouts.get(checkoutId)!;
      const upTo = events.findIndex((e) => e.id === stored.id);
      return { eventId: stored.id, checkout: events.slice(0, upTo).reduce((s, e) => evolveCheckout(s, e.event), initialCheckoutState) };
    }
    const events = this.payments.get(PAYMENT_STREAM.parse(stream)!)!;
    const upTo = events.findIndex((e) => e.id === stored.id);
    return { eventId: stored.id, payment: events.slice(0, upTo).reduce((s, e) => evolvePayment(s, e.event), initialPaymentState) };
  }

  /** Decide on the folded state, append idempotently by event id (an id in the stream is a no-op). */
  private apply(target: Target, commandId: string, causationId: string | null): Appended[] {
    const recordedAt = this.now.toISOString();
    const { name, streams } = this.streamOf(target);
    const out = this.decide(target, commandId).map(({ id, event }) => ({ stream: name, stored: { id, event, recordedAt, causationId } }) as Appended);
    const stream = streams.get(target.id) ?? [];
    streams.set(target.id, stream);
    stream.push(...out.map((e) => e.stored));
    this.log.push(...out);
    return out;
  }

  /** The events the command decides on the folded state, each under the id derived from the command and its index, less the ids its stream holds. */
  private decide(target: Target, commandId: string): { id: string; event: PaymentEvent | CheckoutEvent }[] {
    const ctx = { now: this.now };
    const events = target.target === 'payment' ? decidePayment(target.command, this.paymentState(target.id), ctx) : decideCheckout(target.command, this.checkoutState(target.id), ctx);
    const held = new Set((this.streamOf(target).streams.get(target.id) ?? []).map((e) => e.id));
    return events.map((event, i) => ({ id: reactionEventId(commandId, i), event })).filter((e) => !held.has(e.id));
  }

  private streamOf(target: Target): { name: string; streams: Map<string, Stored<PaymentEvent | CheckoutEvent>[]> } {
    return target.target === 'payment' ? { name: PAYMENT_STREAM.stream(target.id), streams: this.payments } : { name: CHECKOUT_STREAM.stream(target.id), streams: this.checkouts };
  }
}
