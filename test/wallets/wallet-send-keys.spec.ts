import { OWN_ADDRESS_GAP, keysOfPhrase, notSendingReason, ownAddressIndices, sendingFamilies } from '@lib/wallets';

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

/** Which indices a check of "one of the wallet's own addresses" derives (decision 0040, addendum 2026-11-29). */
describe('the wallet’s own addresses: the indices derived', () => {
  it('before any checkout: the first OWN_ADDRESS_GAP (20) indices', () => {
    expect(ownAddressIndices(0, [])).toEqual(Array.from({ length: OWN_ADDRESS_GAP }, (_, i) => i));
  });

  it('after checkouts took 0–4: 5 to 24 (the held ones are looked up in the address book, not derived)', () => {
    expect(ownAddressIndices(5, [])).toEqual(Array.from({ length: 20 }, (_, i) => 5 + i));
  });

  it('indices below the counter no checkout holds are derived too, the highest first and at most the limit; others ignored', () => {
    expect(ownAddressIndices(10, [2, 7, 12, -1], 3)).toEqual([10, 11, 12, 7, 2]);
    expect(ownAddressIndices(10, [1, 2, 3, 4], 2, 2)).toEqual([10, 11, 4, 3]);
  });
});
