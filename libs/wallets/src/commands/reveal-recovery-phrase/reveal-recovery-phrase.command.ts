import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';

/** What POST /wallet/recovery-phrase answers (decision 0041 "Recovery phrase"). */
export interface RecoveryPhraseView {
  kind: 'recovery_phrase';
  wallet_id: string;
  recovery_phrase: string;
}

/** Show the business's wallet's recovery phrase to `accountId`, a stepped-up dashboard session of its owner. */
export class RevealRecoveryPhraseCommand extends Command<RecoveryPhraseView> {
  constructor(
    readonly businessId: string,
    readonly accountId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
