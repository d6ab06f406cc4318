import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner, metadataFor } from '@lib/eventstore';
import { PaymentAccess } from '../../app/access';
import { BusinessClock } from '../../app/business-clock';
import { later } from '../../app/positions';
import { PaymentsProcessManager } from '../../app/process-manager';
import { PaymentStreams } from '../../app/streams';
import { AcceptPaymentCommand } from './accept-payment.command';

/** Accepts a payment: the business's own payment, then decide (payment_not_acceptable; again: nothing), append, settle, wait. */
@CommandHandler(AcceptPaymentCommand)
export class AcceptPaymentHandler implements ICommandHandler<AcceptPaymentCommand, void> {
  constructor(
    private readonly access: PaymentAccess,
    private readonly streams: PaymentStreams,
    private readonly process: PaymentsProcessManager,
    private readonly clock: BusinessClock,
    private readonly runner: CommandRunner,
  ) {}

  async execute({ business, paymentId, meta }: AcceptPaymentCommand): Promise<void> {
    await this.access.ownedPayment(business, paymentId);
    const decided = await this.streams.decidePayment(paymentId, { type: 'AcceptPayment' }, { now: await this.clock.now(business.id), metadata: metadataFor(meta) });
    const settled = await this.process.settle(decided.appended);
    await this.runner.waitFor(later(decided.head, settled.position));
  }
}
