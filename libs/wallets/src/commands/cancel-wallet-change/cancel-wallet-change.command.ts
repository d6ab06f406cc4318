import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { WalletChangeView } from '../../changes/wallet-changes';

/**
 * Cancel a pending wallet deletion (decision 0041): through the e-mailed link (`{token}`, POST
 * /wallet-changes/cancel, no sign-in) or from the dashboard (`{businessId, changeId}`, POST
 * /wallet-changes/{id}/cancel).
 */
export class CancelWalletChangeCommand extends Command<WalletChangeView> {
  constructor(
    readonly by: { token: string } | { businessId: string; changeId: string },
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
