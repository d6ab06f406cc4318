import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ActingBusiness } from '../../app/access';
import type { PaymentView } from '../../read/payment-view';
import type { CreatePaymentRequest } from './create-payment.dto';

/**
 * POST /payments: a business creates a payment. Resolves its id (a held reference's payment for
 * §8.9's repeat) and, when it answered from the decided state instead of the read model, the
 * payment as its endpoint returns it.
 */
export class CreatePaymentCommand extends Command<{ paymentId: string; payment?: PaymentView }> {
  constructor(
    readonly business: ActingBusiness,
    readonly input: CreatePaymentRequest,
    /** Who asked, in which request: the events' metadata. */
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
