import { WalletCommand, WalletCreatedData, WalletEvent, walletDecider } from '@lib/wallets';
import { givenOn } from '../support/decider-spec';

/** given(events).when(command).then(events | refusal): showing the recovery phrase again (decision 0041 "Recovery phrase"). */
const given = (events: WalletEvent[]) => givenOn(walletDecider, events);

const AT = '2026-11-27T10:00:00.000Z';
const wallet = (type: WalletCreatedData['type']): WalletEvent => ({
  type: 'WalletCreated',
  data: { wallet_id: 'wal_1', business_id: 'biz_a', type, evm_xpub: 'xpub…', bitcoin_xpub: null, solana: type === 'external' ? null : { derived: true } },
});
const reveal: WalletCommand = { type: 'RevealRecoveryPhrase', businessId: 'biz_a', accountId: 'acc_1', at: AT };
const revealed: WalletEvent = { type: 'WalletRecoveryPhraseRevealed', data: { wallet_id: 'wal_1', business_id: 'biz_a', account_id: 'acc_1', revealed_at: AT } };

describe('POST /wallet/recovery-phrase (decision 0041)', () => {
  it('a created or imported wallet: each reveal is recorded (who and when, no phrase)', () => {
    given([wallet('created')]).when(reveal).then([revealed]);
    given([wallet('imported'), revealed]).when(reveal).then([revealed]);
  });

  it('a pending deletion does not stop it', () => {
    const requested: WalletEvent = { type: 'WalletDeletionRequested', data: { change_id: 'wcr_1', wallet_id: 'wal_1', business_id: 'biz_a', requested_at: AT, effective_at: AT, token_hash: 'h' } };
    given([wallet('created'), requested]).when(reveal).then([revealed]);
  });

  it('no wallet (or a deleted one): 404 not_found; an external wallet: 409 external_wallet', () => {
    given([]).when(reveal).refused('not_found');
    given([wallet('created'), { type: 'WalletDeleted', data: { wallet_id: 'wal_1', business_id: 'biz_a', change_id: null, deleted_at: AT } }]).when(reveal).refused('not_found');
    given([wallet('external')]).when(reveal).refused('external_wallet');
  });

  it('a reveal changes no state', () => {
    const state = walletDecider.evolve(walletDecider.evolve(walletDecider.initialState, wallet('created')), revealed);
    expect(state).toEqual(walletDecider.evolve(walletDecider.initialState, wallet('created')));
  });
});
