import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { businessDecider } from '../../business.decider';
import { CheckoutRail, CheckoutSettingsChange, CheckoutSettingsView, DEFAULT_CHECKOUT_SETTINGS, carriedAssets, checkoutSettingsView } from '../../checkout-settings';
import { BusinessWrites } from '../business-writes';
import { ChangeCheckoutSettingsCommand } from './change-checkout-settings.command';

/**
 * Checks what the DTO cannot (each pair carried by the service), decides the change on the
 * business's stream (no event when nothing changes) and answers the settings as the stream now
 * leaves them. Test keys on a live business are refused before (403 test_mode_unavailable, §5.4).
 */
@CommandHandler(ChangeCheckoutSettingsCommand)
export class ChangeCheckoutSettingsHandler implements ICommandHandler<ChangeCheckoutSettingsCommand> {
  constructor(private readonly writes: BusinessWrites) {}

  async execute({ businessId, input, meta }: ChangeCheckoutSettingsCommand): Promise<CheckoutSettingsView> {
    const change: CheckoutSettingsChange = {};
    if (input.display_name !== undefined) change.display_name = input.display_name;
    if (input.support_email !== undefined) change.support_email = input.support_email;
    if (input.ask_email !== undefined) change.ask_email = input.ask_email;
    if (input.rails !== undefined) change.rails = input.rails as CheckoutRail[];
    if (input.assets !== undefined) {
      change.assets = input.assets === null ? null : carriedAssets(input.assets);
    }
    await this.writes.run(businessDecider, businessId, { type: 'ChangeCheckoutSettings', businessId, change }, meta);
    const row = (await this.writes.rows(businessId)).checkoutSettings.get(businessId);
    return checkoutSettingsView(businessId, row?.settings ?? DEFAULT_CHECKOUT_SETTINGS, row?.updated_at ?? null);
  }
}
