import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner, metadataFor } from '@lib/eventstore';
import { PaymentAccess } from '../../app/access';
import { BusinessClock } from '../../app/business-clock';
import { later } from '../../app/positions';
import { PaymentsProcessManager } from '../../app/process-manager';
import { PaymentStreams } from '../../app/streams';
import { checkMetadataPatch } from '../../domain/metadata';
import { UpdatePaymentMetadataCommand } from './update-payment-metadata.command';

/** Updates a payment's metadata: the patch's rules, the business's own payment, then decide, append, settle, wait. */
@CommandHandler(UpdatePaymentMetadataCommand)
export class UpdatePaymentMetadataHandler implements ICommandHandler<UpdatePaymentMetadataCommand, void> {
  constructor(
    private readonly access: PaymentAccess,
    private readonly streams: PaymentStreams,
    private readonly process: PaymentsProcessManager,
    private readonly clock: BusinessClock,
    private readonly runner: CommandRunner,
  ) {}

  async execute({ business, paymentId, metadata, meta }: UpdatePaymentMetadataCommand): Promise<void> {
    const patch = checkMetadataPatch(metadata === undefined ? {} : metadata);
    await this.access.ownedPayment(business, paymentId);
    const decided = await this.streams.decidePayment(paymentId, { type: 'UpdateMetadata', metadata: patch }, { now: await this.clock.now(business.id), metadata: metadataFor(meta) });
    const settled = await this.process.settle(decided.appended);
    await this.runner.waitFor(later(decided.head, settled.position));
  }
}
