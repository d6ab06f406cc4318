import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { CardAttemptResult, CardProcessorUnavailable, CardResultReport, CardResultsRelay, CardResultsSink, CardRoutes } from '@lib/cards';
import { CommandRunner, LogPosition, SYSTEM_ACTOR } from '@lib/eventstore';
import { uuidv5 } from '../domain/checkout-to-payment';
import { CardAttemptState, CardCheckoutState, RecordCardResult } from '../domain/checkout.decider';
import { PaymentDomainError } from '../domain/errors';
import { BusinessClock } from './business-clock';
import { later } from './positions';
import { PaymentsProcessManager } from './process-manager';
import { DecideOptions, PaymentStreams } from './streams';

/** How long an attempt waits for its processor before it times out (decision 0026). */
export const CARD_ATTEMPT_TTL_MS = 10 * 60_000;

/**
 * Card attempt results (decision 0026), wherever they come from: the processors' results sink
 * (connected to the relay at start: a processor reports the moment the customer submits its
 * page), the customer's return (confirm asks the processor), and the attempt's expiry timer
 * (asks the processor one last time, else the attempt times out). Each result is decided on the
 * checkout stream with event ids derived from the attempt and the result, so the sink and a
 * confirm racing each other record it once; then settled (the payment follows) and read back.
 */
@Injectable()
export class CardAttempts implements CardResultsSink, OnModuleInit {
  private readonly logger = new Logger('cards');

  constructor(
    private readonly streams: PaymentStreams,
    private readonly process: PaymentsProcessManager,
    private readonly routes: CardRoutes,
    private readonly relay: CardResultsRelay,
    private readonly clock: BusinessClock,
    private readonly runner: CommandRunner,
  ) {}

  onModuleInit(): void {
    this.relay.connect(this);
  }

  /** A processor's report (the port's results sink). */
  async report(report: CardResultReport): Promise<void> {
    const checkout = await this.streams.checkout(report.checkoutId);
    if (checkout.status === 'none' || checkout.rail !== 'card' || !checkout.attempts.some((a) => a.id === report.attemptId)) {
      this.logger.warn(`${report.processor} reported ${report.result.status} for unknown attempt ${report.attemptId} of ${report.checkoutId}`);
      return;
    }
    const now = await this.clock.now(checkout.businessId ?? undefined);
    const position = await this.record(checkout, report.attemptId, report.result, now, `card:${report.processor}:${report.ref}`);
    await this.runner.waitFor(position);
  }

  /**
   * Asks the attempt's processor for its result and records it (the customer came back):
   * the position of what was recorded, or `pending` when the processor has nothing yet.
   * CardProcessorUnavailable becomes 503 upstream_unavailable.
   */
  async resolve(checkout: CardCheckoutState, attempt: CardAttemptState, now: Date): Promise<{ pending: true } | { pending: false; position: LogPosition | null }> {
    const result = await this.ask(attempt);
    if (result.status === 'pending') return { pending: true };
    return { pending: false, position: await this.record(checkout, attempt.id, result, now, `card:confirm:${attempt.id}`) };
  }

  /**
   * The attempt's end (its timer, or a new attempt asked for after it): the processor's result if
   * it has one, else the attempt times out (an unreachable processor counts as one that never
   * answered). `options` carries the timer's own event ids and time.
   */
  async expire(checkoutId: string, attemptId: string, options: DecideOptions): Promise<LogPosition | null> {
    const checkout = await this.streams.checkout(checkoutId);
    if (checkout.status === 'none' || checkout.rail !== 'card') return null;
    const attempt = checkout.attempts.find((a) => a.id === attemptId);
    if (!attempt || attempt.status !== 'pending' || options.now.getTime() < Date.parse(attempt.expiresAt)) return null;
    let result: CardAttemptResult = { status: 'pending' };
    try {
      result = await this.ask(attempt);
    } catch (error) {
      if (!(error instanceof PaymentDomainError)) throw error;
    }
    if (result.status !== 'pending') return this.record(checkout, attemptId, result, options.now, options.metadata.causationId ?? `card:expiry:${attemptId}`);
    return this.process.decideAndSettle({ checkoutId, command: { type: 'TimeOutCardAttempt', attemptId } }, options);
  }

  private async ask(attempt: CardAttemptState): Promise<CardAttemptResult> {
    try {
      return await this.routes.processor(attempt.processor).attemptResult(attempt.ref);
    } catch (error) {
      if (error instanceof CardProcessorUnavailable) throw new PaymentDomainError('upstream_unavailable', `The card processor cannot be reached; retry.`);
      throw error;
    }
  }

  private async record(checkout: CardCheckoutState, attemptId: string, result: Exclude<CardAttemptResult, { status: 'pending' }>, now: Date, cause: string): Promise<LogPosition | null> {
    const command: RecordCardResult = {
      type: 'RecordCardResult',
      attemptId,
      result:
        result.status === 'succeeded'
          ? { status: 'succeeded', brand: result.brand, last4: result.last4, amountMinor: result.amountMinor, currency: result.currency }
          : { status: 'declined', declineCode: result.declineCode, retryable: result.retryable, brand: result.brand, last4: result.last4 },
    };
    const key = `card-result|${attemptId}|${result.status}`;
    const position = await this.process.decideAndSettle(
      { checkoutId: checkout.id, command },
      { now, eventId: (i) => uuidv5(`${key}#${i}`), metadata: { causationId: cause, actor: SYSTEM_ACTOR } },
    );
    return later(position, await this.streams.head('checkout', checkout.id));
  }
}
