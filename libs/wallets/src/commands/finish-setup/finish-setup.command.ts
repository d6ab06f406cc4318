import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { BusinessSetupView } from '../../changes/setup';

/** POST /businesses/{id}/finish-setup (decision 0041): the business leaves setup; it needs a wallet (409 wallet_required). */
export class FinishSetupCommand extends Command<BusinessSetupView> {
  constructor(
    readonly businessId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
