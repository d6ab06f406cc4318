import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { WalletChangeView } from '../../changes/wallet-changes';

/** What DELETE /wallet answers (decision 0041): the wallet removed at once (200), or a deletion pending 24 hours (202). */
export type WalletDeletion = { removed: true; deleted: { kind: 'wallet'; id: string; deleted: true } } | { removed: false; change: WalletChangeView };

/** DELETE /wallet from a dashboard session: `owner` is e-mailed the cancel link of a held deletion. */
export class DeleteWalletCommand extends Command<WalletDeletion> {
  constructor(
    readonly business: { id: string; name: string },
    readonly owner: { email: string },
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
