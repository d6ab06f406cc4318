import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { checkMetadataPatch } from '../../domain/metadata';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { UpdatePaymentMetadataCommand } from './update-payment-metadata.command';

/** Updates a payment's metadata: the patch's rules, the business's own payment, then decide, append, settle, wait. */
@CommandHandler(UpdatePaymentMetadataCommand)
export class UpdatePaymentMetadataHandler implements ICommandHandler<UpdatePaymentMetadataCommand, void> {
  constructor(private readonly steps: PaymentUseCaseSteps) {}

  async execute({ business, paymentId, metadata, meta }: UpdatePaymentMetadataCommand): Promise<void> {
    const patch = checkMetadataPatch(metadata === undefined ? {} : metadata);
    await this.steps.onOwnedPayment(business, paymentId, { type: 'UpdateMetadata', metadata: patch }, meta);
  }
}
