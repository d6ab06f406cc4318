import { foldWith } from '@lib/domain';
import { WALLET_DELETION_HOLD_MS, WalletCommand, WalletCreatedData, WalletEvent, inSetup, walletDecider } from '@lib/wallets';
import { givenOn } from '../support/decider-spec';

/** given(events).when(command).then(events | refusal): wallet deletion, its hold and setup (decision 0041). */
const given = (events: WalletEvent[]) => givenOn(walletDecider, events);

const AT = '2026-11-27T10:00:00.000Z';
const LATER = new Date(Date.parse(AT) + WALLET_DELETION_HOLD_MS).toISOString();
const wallet = (id = 'wal_1'): WalletCreatedData => ({ wallet_id: id, business_id: 'biz_a', type: 'created', evm_xpub: 'xpub…', bitcoin_xpub: 'zpub…', solana: { derived: true } });
const created = (id = 'wal_1'): WalletEvent => ({ type: 'WalletCreated', data: wallet(id) });
const finished: WalletEvent = { type: 'BusinessSetupFinished', data: { business_id: 'biz_a', wallet_id: 'wal_1', finished_at: AT } };
const requested = (changeId = 'wcr_1', tokenHash = 'h1'): WalletEvent => ({
  type: 'WalletDeletionRequested',
  data: { change_id: changeId, wallet_id: 'wal_1', business_id: 'biz_a', requested_at: AT, effective_at: LATER, token_hash: tokenHash },
});
const canceled = (via: 'link' | 'dashboard', at = AT): WalletEvent => ({ type: 'WalletChangeCanceled', data: { change_id: 'wcr_1', wallet_id: 'wal_1', business_id: 'biz_a', canceled_at: at, via } });
const applied: WalletEvent = { type: 'WalletDeleted', data: { wallet_id: 'wal_1', business_id: 'biz_a', change_id: 'wcr_1', deleted_at: LATER } };

const del = (receivedFunds: boolean): WalletCommand => ({ type: 'DeleteWallet', businessId: 'biz_a', changeId: 'wcr_1', tokenHash: 'h1', receivedFunds, at: AT });
const cancelByLink = (tokenHash = 'h1', at = AT): WalletCommand => ({ type: 'CancelWalletChange', businessId: 'biz_a', by: { tokenHash }, at });
const cancelById = (changeId = 'wcr_1', at = AT): WalletCommand => ({ type: 'CancelWalletChange', businessId: 'biz_a', by: { changeId }, at });
const apply = (at = LATER): WalletCommand => ({ type: 'ApplyWalletChange', businessId: 'biz_a', changeId: 'wcr_1', at });

describe('DELETE /wallet (decision 0041)', () => {
  it('in setup with nothing received: the wallet is removed at once', () => {
    given([created()])
      .when(del(false))
      .then([{ type: 'WalletDeleted', data: { wallet_id: 'wal_1', business_id: 'biz_a', change_id: null, deleted_at: AT } }]);
  });

  it('once a payment was received (even in setup): a deletion pending 24 hours', () => {
    given([created()]).when(del(true)).then([requested()]);
  });

  it('setup finished, nothing received yet: held 24 hours too', () => {
    given([created(), finished]).when(del(false)).then([requested()]);
  });

  it('no wallet: 404 not_found; a deletion already pending: 409 wallet_change_pending', () => {
    given([]).when(del(false)).refused('not_found');
    given([created(), requested()]).when(del(true)).refused('wallet_change_pending');
  });

  it('a canceled deletion lets the wallet be deleted again', () => {
    given([created(), requested(), canceled('link')])
      .when({ ...del(true), changeId: 'wcr_2', tokenHash: 'h2' } as WalletCommand)
      .then([requested('wcr_2', 'h2')]);
  });

  it('the wallet keeps receiving while the deletion is pending; the state after removal has none', () => {
    const pending = foldWith(walletDecider, [created(), requested()]);
    expect(pending.current?.wallet_id).toBe('wal_1');
    expect(pending.pending).toBe('wcr_1');
    const gone = foldWith(walletDecider, [created(), requested(), applied]);
    expect(gone.current).toBeNull();
    expect(gone.pending).toBeNull();
    expect(gone.changes?.wcr_1.status).toBe('applied');
    expect(gone.history).toEqual(['wal_1']);
  });
});

describe('canceling a pending deletion', () => {
  it('by the e-mailed link, and from the dashboard', () => {
    given([created(), requested()]).when(cancelByLink()).then([canceled('link')]);
    given([created(), requested()]).when(cancelById()).then([canceled('dashboard')]);
  });

  it('a used or unknown link is 400 invalid_token; an unknown id 404; a canceled change from the dashboard changes nothing', () => {
    given([created(), requested(), canceled('link')]).when(cancelByLink()).refused('invalid_token', 'token');
    given([created(), requested()]).when(cancelByLink('other')).refused('invalid_token', 'token');
    given([created(), requested()]).when(cancelById('wcr_other')).refused('not_found');
    given([created(), requested(), canceled('link')]).when(cancelById()).then([]);
  });

  it('an applied change, or one past its effective_at, is 409 wallet_change_applied', () => {
    given([created(), requested(), applied]).when(cancelByLink()).refused('wallet_change_applied');
    given([created(), requested(), applied]).when(cancelById()).refused('wallet_change_applied');
    given([created(), requested()]).when(cancelByLink('h1', LATER)).refused('wallet_change_applied');
  });
});

describe('the deletion taking effect (its timer at effective_at)', () => {
  it('removes the wallet, naming the change', () => {
    given([created(), requested()]).when(apply()).then([applied]);
  });

  it('a canceled or applied change (the timer firing again) changes nothing; before effective_at it is refused', () => {
    given([created(), requested(), canceled('dashboard')]).when(apply()).then([]);
    given([created(), requested(), applied]).when(apply()).then([]);
    given([created(), requested()]).when(apply(AT)).refused('invalid_request');
  });
});

describe('setup (issue 19 B16)', () => {
  it('a business is in setup until it finishes it, which needs a wallet', () => {
    expect(inSetup(foldWith(walletDecider, [created()]))).toBe(true);
    given([]).when({ type: 'FinishSetup', businessId: 'biz_a', at: AT }).refused('wallet_required');
    given([created()]).when({ type: 'FinishSetup', businessId: 'biz_a', at: AT }).then([finished]);
    given([created(), finished]).when({ type: 'FinishSetup', businessId: 'biz_a', at: LATER }).then([]);
    expect(inSetup(foldWith(walletDecider, [created(), finished]))).toBe(false);
  });

  it('a wallet removed during setup leaves the business in setup, needing a wallet again', () => {
    const removed: WalletEvent = { type: 'WalletDeleted', data: { wallet_id: 'wal_1', business_id: 'biz_a', change_id: null, deleted_at: AT } };
    given([created(), removed]).when({ type: 'FinishSetup', businessId: 'biz_a', at: AT }).refused('wallet_required');
  });
});
