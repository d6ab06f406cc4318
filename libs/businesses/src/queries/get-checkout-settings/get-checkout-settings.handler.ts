import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { CheckoutSettings, CheckoutSettingsView, DEFAULT_CHECKOUT_SETTINGS, checkoutSettingsView } from '../../checkout-settings';
import { GetCheckoutSettingsQuery } from './get-checkout-settings.query';

/** A business's checkout settings as the projection has them (the defaults when it never changed them). */
export async function findCheckoutSettings(db: Sql, businessId: string): Promise<{ settings: CheckoutSettings; updatedAt: Date | null }> {
  const { rows } = await db.query<{ settings: CheckoutSettings; updated_at: Date }>(`SELECT settings, updated_at FROM checkout_settings WHERE business_id = $1`, [businessId], 'checkout_settings_get');
  const row = rows[0];
  return row ? { settings: { ...DEFAULT_CHECKOUT_SETTINGS, ...row.settings }, updatedAt: row.updated_at } : { settings: DEFAULT_CHECKOUT_SETTINGS, updatedAt: null };
}

@QueryHandler(GetCheckoutSettingsQuery)
export class GetCheckoutSettingsHandler implements IQueryHandler<GetCheckoutSettingsQuery> {
  constructor(@Inject(DATABASE) private readonly db: Sql) {}

  async execute({ businessId }: GetCheckoutSettingsQuery): Promise<CheckoutSettingsView> {
    const { settings, updatedAt } = await findCheckoutSettings(this.db, businessId);
    return checkoutSettingsView(businessId, settings, updatedAt);
  }
}
