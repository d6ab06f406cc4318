import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { WalletView } from '../../views';

/** What POST /wallet answers: the wallet, and for a `created` wallet its recovery phrase (this once). */
export interface CreatedWallet {
  wallet: WalletView;
  recoveryPhrase: string | null;
}

/** Create (or import, or connect) the business's wallet. `input` has passed CreateWalletRequest's rules (or is checked here when it comes from elsewhere). */
export class CreateWalletCommand extends Command<CreatedWallet> {
  constructor(
    readonly businessId: string,
    readonly input: { type?: string; recovery_phrase?: string; evm_xpub?: string; bitcoin_xpub?: string; solana_address?: string },
    readonly meta: WriteMeta = {},
    /** The business's: the wallet answered shows where a live business receives (GET /wallet's rule). */
    readonly simulated = false,
  ) {
    super();
  }
}
