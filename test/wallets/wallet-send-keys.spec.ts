import { keysOfPhrase, notSendingReason, sendingFamilies } from '@lib/wallets';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** Which networks a wallet can send from (decision 0040, addendum 2026-11-29): those whose keys it holds. */
describe('a wallet sends only where it holds keys', () => {
  const keys = keysOfPhrase(ABANDON);

  it('a wallet created or imported here holds every family', () => {
    const created = { evm_xpub: keys.evmXpub, bitcoin_xpub: keys.bitcoinXpub, solana: { derived: true as const } };
    expect([...sendingFamilies(created)].sort()).toEqual(['bitcoin', 'evm', 'solana']);
    for (const network of ['ethereum', 'polygon', 'solana', 'bitcoin'] as const) expect(notSendingReason(created, network)).toBeNull();
  });

  it('an external wallet with only an EVM account key: EVM networks, not Bitcoin or Solana', () => {
    const external = { evm_xpub: keys.evmXpub, bitcoin_xpub: null, solana: null };
    expect([...sendingFamilies(external)]).toEqual(['evm']);
    expect(notSendingReason(external, 'arbitrum')).toBeNull();
    expect(notSendingReason(external, 'bitcoin')).toMatch(/no keys on bitcoin/);
    expect(notSendingReason(external, 'solana')).toMatch(/no keys on solana/);
  });

  it('an external wallet’s one Solana address: it sends from it (it only never receives through checkouts)', () => {
    const external = { evm_xpub: null, bitcoin_xpub: keys.bitcoinXpub, solana: { address: keys.solanaAddress0 } };
    expect([...sendingFamilies(external)].sort()).toEqual(['bitcoin', 'solana']);
    expect(notSendingReason(external, 'ethereum')).toMatch(/no EVM account key/);
  });
});
