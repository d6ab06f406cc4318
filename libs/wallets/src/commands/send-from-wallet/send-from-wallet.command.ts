import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { WalletTransactionView } from '../../sends/wallet-transactions.read-model';
import type { SendFromWalletRequest } from './send-from-wallet.dto';

/** The acting business as a send needs it. */
export interface SendingBusiness {
  id: string;
  simulated: boolean;
}

/** Send from the business's wallet (POST /wallet/transactions): one chain transaction. */
export class SendFromWalletCommand extends Command<WalletTransactionView> {
  constructor(
    readonly business: SendingBusiness,
    readonly input: SendFromWalletRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
