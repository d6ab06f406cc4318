import type { MempoolSnapshot } from '@lib/chains';
import { ChainTransfers } from '../../libs/payments/src/app/chain-transfers';

/**
 * ChainTransfers' mempool look (decision 0023, addenda of 2026-11-29): every open Bitcoin checkout
 * is looked at each mempool poll, and an empty mempool for a checkout whose read-model row shows
 * no sighting has nothing to record or drop — so it reads neither the address book nor the
 * checkout's stream. Anything else (a pending transaction, a row with a sighting, an address the
 * last list did not name) is looked up as before. The collaborators are stand-ins that count.
 */
describe('ChainTransfers: the mempool of a checkout with nothing seen reads nothing', () => {
  const empty = (address: string): MempoolSnapshot => ({ network: 'bitcoin', address, pending: [], mined: [] });

  function transfers(rows: { address: string; sighted: boolean }[]) {
    const owners: string[] = [];
    const book = { owner: async (_family: string, address: string) => (owners.push(address), null) };
    const read = { awaitingAddresses: async () => rows };
    const unused = {} as never;
    const sink = new ChainTransfers(unused, unused, book as never, unused, read as never);
    return { sink, owners };
  }

  it('an empty mempool: skipped for a listed checkout without a sighting; looked up for one with a sighting (to drop it) and for an address not listed', async () => {
    const { sink, owners } = transfers([
      { address: 'bc1quiet', sighted: false },
      { address: 'bc1held', sighted: true },
    ]);
    expect(await sink.awaitingAddresses('bitcoin')).toEqual(['bc1quiet', 'bc1held']);
    await sink.mempool(empty('bc1quiet'));
    await sink.mempool(empty('bc1held'));
    await sink.mempool(empty('bc1other'));
    expect(owners).toEqual(['bc1held', 'bc1other']);
  });

  it('a pending transaction is always looked up, sighting or not', async () => {
    const { sink, owners } = transfers([{ address: 'bc1quiet', sighted: false }]);
    await sink.awaitingAddresses('bitcoin');
    await sink.mempool({ ...empty('bc1quiet'), pending: [{ network: 'bitcoin', txHash: 'ab'.repeat(32), asset: 'BTC', amount: 50_000n, to: 'bc1quiet' }] });
    expect(owners).toEqual(['bc1quiet']);
  });

  it('before any list (or for another network) nothing is skipped', async () => {
    const { sink, owners } = transfers([{ address: 'bc1quiet', sighted: false }]);
    await sink.mempool(empty('bc1quiet'));
    await sink.awaitingAddresses('bitcoin');
    await sink.mempool({ ...empty('bc1quiet'), network: 'ethereum' });
    expect(owners).toEqual(['bc1quiet', 'bc1quiet']);
  });
});
