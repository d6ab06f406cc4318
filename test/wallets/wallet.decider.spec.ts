import { foldWith } from '@lib/domain';
import { ClaimKey, CreateWallet, WalletCreatedData, WalletKeyEvent, keyClaimDecider, walletDecider } from '@lib/wallets';
import { givenOn } from '../support/decider-spec';

/** given(decider, events).when(command).then(events | refusal code and field), on the wallet deciders. */
const given = givenOn;

const wallet = (id: string, business = 'biz_a'): WalletCreatedData => ({ wallet_id: id, business_id: business, type: 'created', evm_xpub: 'xpub…', bitcoin_xpub: 'zpub…', solana: { derived: true } });
const create = (id: string, fields: Partial<CreateWallet> = {}): CreateWallet => ({ type: 'CreateWallet', walletId: id, businessId: 'biz_a', walletType: 'created', evmXpub: 'xpub…', bitcoinXpub: 'zpub…', solana: { derived: true }, ...fields });
const claim = (walletId: string, businessId: string, businessWallets: string[] = []): ClaimKey => ({ type: 'ClaimKey', walletId, businessId, family: 'evm', field: 'evm_xpub', businessWallets });
const claimed = (walletId: string, businessId: string): WalletKeyEvent => ({ type: 'WalletKeyClaimed', data: { wallet_id: walletId, business_id: businessId, family: 'evm' } });

describe('wallet decider (one wallet per business)', () => {
  it('a business without a wallet creates one', () => {
    given(walletDecider, []).when(create('wal_1')).then([{ type: 'WalletCreated', data: wallet('wal_1') }]);
  });

  it('the same creation again changes nothing; another one is 409 wallet_exists', () => {
    given(walletDecider, [{ type: 'WalletCreated', data: wallet('wal_1') }]).when(create('wal_1')).then([]);
    given(walletDecider, [{ type: 'WalletCreated', data: wallet('wal_1') }]).when(create('wal_2')).refused('wallet_exists');
  });

  it('a wallet with no key to receive with is refused', () => {
    given(walletDecider, []).when(create('wal_1', { evmXpub: null, bitcoinXpub: null, solana: null })).refused('invalid_request');
  });

  it('the state remembers every wallet the business had', () => {
    const state = foldWith(walletDecider, [{ type: 'WalletCreated', data: wallet('wal_1') }]);
    expect(state.history).toEqual(['wal_1']);
    expect(state.current?.wallet_id).toBe('wal_1');
  });
});

describe('key claims (keys used by one wallet are refused to every other, §7)', () => {
  it('a free key is claimed; the same claim again changes nothing', () => {
    given(keyClaimDecider, []).when(claim('wal_1', 'biz_a')).then([claimed('wal_1', 'biz_a')]);
    given(keyClaimDecider, [claimed('wal_1', 'biz_a')]).when(claim('wal_1', 'biz_a')).then([]);
  });

  it("another business's key is refused, naming the field it came from", () => {
    given(keyClaimDecider, [claimed('wal_1', 'biz_a')]).when(claim('wal_2', 'biz_b')).refused('invalid_request', 'evm_xpub');
  });

  it("a key of this business's wallet, current or past, is refused too", () => {
    given(keyClaimDecider, [claimed('wal_1', 'biz_a')]).when(claim('wal_2', 'biz_a', ['wal_1'])).refused('invalid_request', 'evm_xpub');
  });

  it("a claim this business left without a wallet (a creation that stopped halfway) is taken over", () => {
    given(keyClaimDecider, [claimed('wal_1', 'biz_a')]).when(claim('wal_2', 'biz_a', [])).then([claimed('wal_2', 'biz_a')]);
  });
});
