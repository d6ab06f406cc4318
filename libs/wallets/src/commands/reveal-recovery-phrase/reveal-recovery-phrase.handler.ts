import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { WalletChanges } from '../../changes/wallet-changes';
import { SEED_VAULT, SeedVault } from '../../seed-vault';
import { RecoveryPhraseView, RevealRecoveryPhraseCommand } from './reveal-recovery-phrase.command';

/**
 * POST /wallet/recovery-phrase (decision 0041 "Recovery phrase"): the decider refuses a business
 * without a wallet (404 not_found) or with an external one (409 external_wallet), else records
 * WalletRecoveryPhraseRevealed (the account and the time, never the phrase). The phrase is
 * unsealed before that event is appended, so no phrase is shown without its record and a failed
 * unseal records nothing. The phrase goes to the answer only: never an event, a log line or the
 * idempotency store (the route ignores Idempotency-Key).
 */
@CommandHandler(RevealRecoveryPhraseCommand)
export class RevealRecoveryPhraseHandler implements ICommandHandler<RevealRecoveryPhraseCommand, RecoveryPhraseView> {
  constructor(
    private readonly changes: WalletChanges,
    @Inject(SEED_VAULT) private readonly vault: SeedVault,
  ) {}

  async execute({ businessId, accountId, meta }: RevealRecoveryPhraseCommand): Promise<RecoveryPhraseView> {
    const at = (await this.changes.now(businessId)).toISOString();
    const revealed: { view?: RecoveryPhraseView } = {};
    await this.changes.run(
      businessId,
      { type: 'RevealRecoveryPhrase', businessId, accountId, at },
      meta,
      {
        beforeAppend: async (events) => {
          const event = events.find((e) => e.type === 'WalletRecoveryPhraseRevealed');
          if (event?.type !== 'WalletRecoveryPhraseRevealed') return;
          const phrase = await this.vault.phrase(event.data.wallet_id);
          // a created or imported wallet is sealed before it exists (CreateWalletHandler): a missing phrase is a broken vault
          if (phrase === null) throw new Error(`wallet ${event.data.wallet_id}: no recovery phrase in the vault`);
          revealed.view = { kind: 'recovery_phrase', wallet_id: event.data.wallet_id, recovery_phrase: phrase };
        },
      },
    );
    if (!revealed.view) throw new Error(`wallet of ${businessId}: the reveal was decided without its event`);
    return revealed.view;
  }
}
