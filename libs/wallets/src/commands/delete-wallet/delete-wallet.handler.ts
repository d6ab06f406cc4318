import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { DomainRefusal } from '@lib/domain';
import { newId, newLinkToken } from '@lib/http';
import type { WalletDeletionRequestedData } from '../../events';
import { WALLET_CHANGE_LINK_BASE, WALLET_CHANGE_MAIL, WalletChangeMail, walletChangeCancelLink } from '../../changes/wallet-change-mail';
import { WalletChanges, walletChangeTimerId, walletChangeView } from '../../changes/wallet-changes';
import { hasReceivedFunds } from '../../received-funds';
import { DeleteWalletCommand, WalletDeletion } from './delete-wallet.command';

/**
 * DELETE /wallet (spec §3, §4; decision 0041), in this order: the wallet (404 not_found), no
 * deletion pending (409 wallet_change_pending), then the decider's choice —
 * - still in setup and nothing received: WalletDeleted at once → 200 `{kind: wallet, id, deleted: true}`;
 * - otherwise WalletDeletionRequested, effective 24 hours later in the business's time → 202 the
 *   wallet change. Before the append the apply timer is scheduled (a timer whose change was never
 *   written finds nothing to apply; a request that loses the stream's race and is refused cancels
 *   its own). Only once the append succeeded (the CommandRunner's afterAppend) is the owner
 *   e-mailed the cancel link: a request refused 409 after a lost race has sent nothing (addendum
 *   of 2026-11-29). SMTP down → the request withdraws its change (WalletChangeCanceled, via
 *   `undelivered`) and answers 503 email_unavailable: a hold nobody can cancel by e-mail is not
 *   offered.
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
    /** The request this attempt is about to append (the last decision before the append that succeeded). */
    let requested: WalletDeletionRequestedData | null = null;
    let result;
    try {
      result = await this.changes.run(
        business.id,
        { type: 'DeleteWallet', businessId: business.id, changeId, tokenHash: hash, receivedFunds, at },
        meta,
        {
          beforeAppend: async (events) => {
            const event = events.find((e) => e.type === 'WalletDeletionRequested');
            requested = event?.type === 'WalletDeletionRequested' ? event.data : null;
            if (requested) await this.changes.scheduleApply(business.id, changeId, requested.effective_at);
          },
          afterAppend: async () => {
            if (requested) await this.notify(business, owner, requested, token, meta);
          },
        },
      );
    } catch (error) {
      // refused after a lost race (409 wallet_change_pending), or the notice undelivered: no timer left behind
      if (requested) await this.changes.timers.cancel(walletChangeTimerId(changeId));
      throw error;
    }
    const deleted = result.appended.find((a) => a.event.type === 'WalletDeleted');
    if (deleted) return { removed: true, deleted: { kind: 'wallet', id: result.before.current!.wallet_id, deleted: true } };
    const change = result.state.changes?.[changeId];
    if (!change) throw new Error(`wallet change ${changeId} of ${business.id}: not in the stream after its request`);
    return { removed: false, change: walletChangeView(change) };
  }

  /**
   * The one notice of the deletion just recorded, with its cancel link. Outside the owner's e-mail
   * budget (spec §8), as the e-mail-change undo notice: it is the one notice, with the one
   * no-sign-in cancel link, of a deletion someone else may have asked for; a spent budget must not
   * silence it (0041). It cannot flood an address: only the request whose append won sends it.
   * Undelivered (MailUnavailableError): the change is withdrawn, then the error answers 503.
   */
  private async notify(
    business: DeleteWalletCommand['business'],
    owner: DeleteWalletCommand['owner'],
    requested: WalletDeletionRequestedData,
    token: string,
    meta: DeleteWalletCommand['meta'],
  ): Promise<void> {
    try {
      await this.mail.sendDeletionPending(owner.email, { businessName: business.name, effectiveAt: requested.effective_at, link: walletChangeCancelLink(this.linkBase, token) });
    } catch (error) {
      await this.changes.run(business.id, { type: 'CancelWalletChange', businessId: business.id, by: { changeId: requested.change_id, undelivered: true }, at: requested.requested_at }, meta);
      throw error;
    }
  }
}
