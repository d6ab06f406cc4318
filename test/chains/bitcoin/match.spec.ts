import { decodeBitcoinBlock, decodeBitcoinTransaction, watchedBitcoinBlockTransfers, watchedBitcoinTransfers } from '../../../libs/chains/src/bitcoin';
import { BLOCK_542213, FakeWatched, GENESIS, SEGWIT_TX, TESTNET_301322, bitcoinFixture } from './fixtures';

const block542213 = () => decodeBitcoinBlock(bitcoinFixture(BLOCK_542213.file));

describe('watched Bitcoin transfers', () => {
  it('reports the output to a watched native-segwit address: exact sats, vout, txid, block', async () => {
    const watched = new FakeWatched([BLOCK_542213.segwit.address]);
    const transfers = await watchedBitcoinBlockTransfers(block542213(), BLOCK_542213.height, watched);
    expect(transfers).toEqual([
      {
        network: 'bitcoin',
        txHash: BLOCK_542213.segwit.txid,
        index: BLOCK_542213.segwit.vout,
        asset: 'BTC',
        amount: BLOCK_542213.segwit.sats,
        to: BLOCK_542213.segwit.address,
        from: null,
        block: { height: BLOCK_542213.height, hash: BLOCK_542213.hash, time: BLOCK_542213.time },
      },
    ]);
  });

  it('reports nothing when no output pays a watched address, after one bulk question with every paid address', async () => {
    const watched = new FakeWatched(['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu']);
    expect(await watchedBitcoinBlockTransfers(block542213(), BLOCK_542213.height, watched)).toEqual([]);
    expect(watched.calls).toHaveLength(1);
    expect(watched.calls[0].family).toBe('bitcoin');
    // 8 outputs: the OP_RETURN commitment has no address (and pays 0)
    expect([...watched.calls[0].addresses].sort()).toEqual(
      [
        '1Nh7uHdvY6fNwtQtM1G5EZAFPLC33B59rB',
        '1D69P8wysTnTw6CEvX7ShcYFZQaothNGbL',
        '14mrcvcB1fgk7x7PJXUzBxwsU5j9bfPXJh',
        '3HXqvg1xnpL4iHn2LFn7yznEWhc1u3LsBe',
        BLOCK_542213.segwit.address,
        '1K7JmKRpyAEDENgbkRKrdSaT3Q1bdY1YVn',
        '37ag8geFBRVMqB9bGTLCWqZ1LUVjbrcs8n',
      ].sort(),
    );
  });

  it('reports several watched outputs in chain order (transaction, then vout)', async () => {
    const watched = new FakeWatched(['37ag8geFBRVMqB9bGTLCWqZ1LUVjbrcs8n', BLOCK_542213.segwit.address, '3HXqvg1xnpL4iHn2LFn7yznEWhc1u3LsBe', '1Nh7uHdvY6fNwtQtM1G5EZAFPLC33B59rB']);
    const transfers = await watchedBitcoinBlockTransfers(block542213(), BLOCK_542213.height, watched);
    expect(transfers.map((t) => [t.txHash.slice(0, 8), t.index, t.amount])).toEqual([
      ['c399a9d7', 0, 1_250_004_874n], // the coinbase pays a watched address too: it is an output like any other
      ['6c6e3849', 0, 1_627_238n],
      ['6c6e3849', 1, 1150n],
      ['5b211bc5', 1, 43_753_861n],
    ]);
  });

  it('asks nothing and reports nothing for a block whose outputs have no address (genesis: P2PK)', async () => {
    const watched = new FakeWatched([]);
    const genesis = decodeBitcoinBlock(bitcoinFixture(GENESIS.file));
    expect(await watchedBitcoinBlockTransfers(genesis, 0, watched)).toEqual([]);
    expect(watched.calls).toHaveLength(0);
  });

  it('matches testnet data only when decoding for testnet', async () => {
    const block = decodeBitcoinBlock(bitcoinFixture(TESTNET_301322.file));
    const watched = new FakeWatched(['mvVrJ398S7Wyd5NQVm6jmv1aTWYR6jVQTZ']);
    expect(await watchedBitcoinBlockTransfers(block, TESTNET_301322.height, watched)).toEqual([]);
    const transfers = await watchedBitcoinBlockTransfers(block, TESTNET_301322.height, watched, { chain: 'testnet' });
    expect(transfers.map((t) => [t.txHash, t.index, t.amount, t.to])).toEqual([
      [block.transactions[3].txid, 0, 7800n, 'mvVrJ398S7Wyd5NQVm6jmv1aTWYR6jVQTZ'],
      [block.transactions[8].txid, 1, 170_000n, 'mvVrJ398S7Wyd5NQVm6jmv1aTWYR6jVQTZ'], // the same address, paid again
    ]);
  });

  it('matches one decoded transaction on its own (GET /tx/:txid/hex)', async () => {
    const tx = decodeBitcoinTransaction(bitcoinFixture(SEGWIT_TX.file));
    const block = { height: BLOCK_542213.height, hash: BLOCK_542213.hash };
    const transfers = await watchedBitcoinTransfers([tx], block, new FakeWatched([BLOCK_542213.segwit.address]));
    expect(transfers.map((t) => [t.txHash, t.index, t.amount])).toEqual([[SEGWIT_TX.txid, 1, 1150n]]);
  });
});
