import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { WalletChangeView, WalletChanges, readCancelToken, walletChangeTimerId } from '../../changes/wallet-changes';
import { CancelWalletChangeCommand } from './cancel-wallet-change.command';

/**
 * Cancels a pending wallet deletion (decision 0041). By link: a malformed, unknown or used token
 * is 400 invalid_token; by id: another business's or an unknown id is 404 not_found, a canceled
 * change is answered as it is. An applied change (or one past its effective_at) is 409
 * wallet_change_applied. Then WalletChangeCanceled, and the apply timer canceled (were it to fire
 * anyway, the decider applies nothing to a canceled change).
 */
@CommandHandler(CancelWalletChangeCommand)
export class CancelWalletChangeHandler implements ICommandHandler<CancelWalletChangeCommand, WalletChangeView> {
  constructor(private readonly changes: WalletChanges) {}

  async execute({ by, meta }: CancelWalletChangeCommand): Promise<WalletChangeView> {
    let businessId: string;
    let named: { tokenHash: string } | { changeId: string };
    if ('token' in by) {
      const read = readCancelToken(by.token);
      if (read === null) throw new DomainRefusal('invalid_token', 'This cancel link was used, replaced or has expired.', 'token');
      businessId = read.businessId;
      named = { tokenHash: read.hash };
    } else {
      businessId = by.businessId;
      named = { changeId: by.changeId };
    }
    const at = (await this.changes.now(businessId)).toISOString();
    const result = await this.changes.run(businessId, { type: 'CancelWalletChange', businessId, by: named, at }, meta);
    const change = 'changeId' in named ? result.state.changes?.[named.changeId] : Object.values(result.state.changes ?? {}).find((c) => c.tokenHash === named.tokenHash);
    if (!change) throw new Error(`wallet change of ${businessId}: not in the stream after its cancel`);
    await this.changes.timers.cancel(walletChangeTimerId(change.id));
    return WalletChanges.changeOf(result.state, change.id);
  }
}
