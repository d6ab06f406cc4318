import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { DomainRefusal } from '@lib/domain';
import { newId, newLinkToken } from '@lib/http';
import { WALLET_CHANGE_LINK_BASE, WALLET_CHANGE_MAIL, WalletChangeMail, walletChangeCancelLink } from '../../changes/wallet-change-mail';
import { WalletChanges, walletChangeTimerId, walletChangeView } from '../../changes/wallet-changes';
import { hasReceivedFunds } from '../../received-funds';
import { DeleteWalletCommand, WalletDeletion } from './delete-wallet.command';

/**
 * DELETE /wallet (spec §3, §4; decision 0041), in this order: the wallet (404 not_found), no
 * deletion pending (409 wallet_change_pending), then the decider's choice —
 * - still in setup and nothing received: WalletDeleted at once → 200 `{kind: wallet, id, deleted: true}`;
 * - otherwise WalletDeletionRequested, effective 24 hours later in the business's time → 202 the
 *   wallet change. Before the append: the apply timer is scheduled (a timer whose change was
 *   never written finds nothing to apply) and the owner e-mailed the cancel link (SMTP down →
 *   503 email_unavailable, nothing recorded: the owner must be able to cancel).
 */
@CommandHandler(DeleteWalletCommand)
export class DeleteWalletHandler implements ICommandHandler<DeleteWalletCommand, WalletDeletion> {
  constructor(
    private readonly changes: WalletChanges,
    @Inject(DATABASE) private readonly db: Sql,
    @Inject(WALLET_CHANGE_MAIL) private readonly mail: WalletChangeMail,
    @Inject(WALLET_CHANGE_LINK_BASE) private readonly linkBase: string,
  ) {}

  async execute({ business, owner, meta }: DeleteWalletCommand): Promise<WalletDeletion> {
    const state = await this.changes.state(business.id);
    if (state.current === null) throw new DomainRefusal('not_found', 'This business has no wallet.');
    if (state.pending) throw new DomainRefusal('wallet_change_pending', 'The wallet is already set to be deleted.');
    const receivedFunds = await hasReceivedFunds(this.db, business.id);
    const { token, hash } = newLinkToken(business.id);
    const changeId = newId('wcr');
    const at = (await this.changes.now(business.id)).toISOString();
    const result = await this.changes.run(
      business.id,
      { type: 'DeleteWallet', businessId: business.id, changeId, tokenHash: hash, receivedFunds, at },
      meta,
      {
        beforeAppend: async (events) => {
          const requested = events.find((e) => e.type === 'WalletDeletionRequested');
          if (requested?.type !== 'WalletDeletionRequested') return;
          await this.changes.scheduleApply(business.id, changeId, requested.data.effective_at);
          try {
            // outside the owner's e-mail budget (spec §8), as the e-mail-change undo notice: it is the one notice, with the one
            // no-sign-in cancel link, of a deletion someone else may have asked for; a spent budget must not silence it (0041)
            await this.mail.sendDeletionPending(owner.email, { businessName: business.name, effectiveAt: requested.data.effective_at, link: walletChangeCancelLink(this.linkBase, token) });
          } catch (error) {
            await this.changes.timers.cancel(walletChangeTimerId(changeId)); // MailUnavailableError: 503 email_unavailable
            throw error;
          }
        },
      },
    );
    const deleted = result.appended.find((a) => a.event.type === 'WalletDeleted');
    if (deleted) return { removed: true, deleted: { kind: 'wallet', id: result.before.current!.wallet_id, deleted: true } };
    const change = result.state.changes?.[changeId];
    if (!change) throw new Error(`wallet change ${changeId} of ${business.id}: not in the stream after its request`);
    return { removed: false, change: walletChangeView(change) };
  }
}
