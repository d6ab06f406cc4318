import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { PaymentDomainError } from '../../domain/errors';
import { isCheckoutId } from '../../domain/stream-categories';
import { CheckoutView } from '../../read/checkout-view';
import { PaymentsReadModel } from '../../read/payments.read-model';
import { GetCheckoutQuery } from './get-checkout.query';

/** The checkout from the read model; not_found for a malformed or unknown id, or another business's checkout. */
@QueryHandler(GetCheckoutQuery)
export class GetCheckoutHandler implements IQueryHandler<GetCheckoutQuery, CheckoutView> {
  constructor(private readonly read: PaymentsReadModel) {}

  async execute({ checkoutId, options }: GetCheckoutQuery): Promise<CheckoutView> {
    const view = isCheckoutId(checkoutId) ? await this.read.getCheckout(checkoutId, { secretFields: options.secretFields, businessId: options.businessId ?? undefined }) : null;
    if (!view) throw new PaymentDomainError('not_found', `No checkout ${checkoutId}.`);
    return view;
  }
}
