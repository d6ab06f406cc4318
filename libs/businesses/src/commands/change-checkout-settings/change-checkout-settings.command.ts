import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { CheckoutSettingsView } from '../../checkout-settings';
import type { ChangeCheckoutSettingsDto } from './change-checkout-settings.dto';

/** The business changes what its customers see and how they may pay (PATCH /checkout-settings). */
export class ChangeCheckoutSettingsCommand extends Command<CheckoutSettingsView> {
  constructor(
    readonly businessId: string,
    readonly input: ChangeCheckoutSettingsDto,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
