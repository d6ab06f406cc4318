import { BitcoinDecodeError, BitcoinReader, EsploraClient, EsploraError, decodeBitcoinTransaction } from '../../../libs/chains/src/bitcoin';
import { type TestEsplora, startTestEsplora } from '../../support/esplora';
import { LocalBitcoinChain } from './local-chain';
import { BLOCK_542213, FakeWatched, GENESIS, SEGWIT_TX, bitcoinFixture } from './fixtures';

/**
 * The Esplora client and BitcoinReader against a local node:http server that answers Esplora's
 * documented routes with real blocks kept as fixtures (no Bitcoin node or indexer runs here).
 * The served "chain" has genesis at 0 and block 542,213 at its real height; the tip is 542,214
 * (a height the indexer has no block at, as if it were still arriving).
 */
describe('Esplora client and BitcoinReader', () => {
  let esplora: TestEsplora;
  let client: EsploraClient;
  let reader: BitcoinReader;

  beforeAll(async () => {
    esplora = await startTestEsplora();
  });
  afterAll(async () => {
    await esplora.close();
  });
  beforeEach(() => {
    esplora.setBlocks(
      [
        { height: 0, raw: bitcoinFixture(GENESIS.file) },
        { height: BLOCK_542213.height, raw: bitcoinFixture(BLOCK_542213.file) },
      ],
      BLOCK_542213.height + 1,
    );
    esplora.clearFaults();
    esplora.requests.length = 0;
    client = new EsploraClient({ baseUrl: `${esplora.url}/`, timeoutMs: 2_000 });
    reader = new BitcoinReader({ esplora: client });
  });

  describe('EsploraClient', () => {
    it('reads the tip height and the hash at a height (text answers)', async () => {
      expect(await client.tipHeight()).toBe(BLOCK_542213.height + 1);
      expect(await client.blockHashAtHeight(BLOCK_542213.height)).toBe(BLOCK_542213.hash);
      expect(await client.blockHashAtHeight(0)).toBe(GENESIS.hash);
      expect(esplora.requests).toEqual(['/blocks/tip/height', `/block-height/${BLOCK_542213.height}`, '/block-height/0']);
    });

    it('answers null for a height past the tip and an unknown hash (404 "Block not found")', async () => {
      expect(await client.blockHashAtHeight(BLOCK_542213.height + 1)).toBeNull();
      expect(await client.block('00'.repeat(32))).toBeNull();
      expect(await client.rawBlock('00'.repeat(32))).toBeNull();
      expect(await client.transactionHex('00'.repeat(32))).toBeNull();
    });

    it('reads the block JSON and the raw block by hash', async () => {
      const block = await client.block(BLOCK_542213.hash);
      expect(block).toMatchObject({ id: BLOCK_542213.hash, height: BLOCK_542213.height, previousblockhash: BLOCK_542213.parentHash, tx_count: 4, size: 2355, weight: 8982 });
      expect(await client.block(GENESIS.hash)).not.toHaveProperty('previousblockhash');
      expect(await client.rawBlock(BLOCK_542213.hash)).toEqual(bitcoinFixture(BLOCK_542213.file));
    });

    it('reads a transaction as hex (GET /tx/:txid/hex)', async () => {
      esplora.addTransaction(SEGWIT_TX.txid, bitcoinFixture(SEGWIT_TX.file));
      const hex = await client.transactionHex(SEGWIT_TX.txid);
      expect(decodeBitcoinTransaction(Uint8Array.from(Buffer.from(hex as string, 'hex'))).txid).toBe(SEGWIT_TX.txid);
    });

    it('throws a status error on 500 (and on a 404 for the tip, which always exists)', async () => {
      const undo = esplora.fault(/^\/blocks\/tip\/height$/, { status: 500, body: 'Internal Server Error: db locked' });
      const error = await client.tipHeight().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EsploraError);
      expect(error).toMatchObject({ kind: 'status', status: 500, path: '/blocks/tip/height' });
      expect((error as Error).message).toContain('db locked');
      undo();
      esplora.fault(/^\/blocks\/tip\/height$/, { status: 404, body: 'Not found' });
      await expect(client.tipHeight()).rejects.toMatchObject({ kind: 'status', status: 404 });
    });

    it('gives up on an answer that does not come, within its deadline', async () => {
      esplora.fault(/^\/block-height\//, 'hang');
      const quick = new EsploraClient({ baseUrl: esplora.url, timeoutMs: 300 });
      const started = Date.now();
      const error = await quick.blockHashAtHeight(5).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EsploraError);
      expect(error).toMatchObject({ kind: 'timeout', path: '/block-height/5' });
      expect(Date.now() - started).toBeLessThan(3_000);
    });

    it('refuses answers that are not what the API documents', async () => {
      esplora.fault(/^\/blocks\/tip\/height$/, { status: 200, body: '<html>captive portal</html>' });
      await expect(client.tipHeight()).rejects.toMatchObject({ kind: 'malformed' });
      esplora.fault(/^\/block-height\/0$/, { status: 200, body: 'not-a-hash' });
      await expect(client.blockHashAtHeight(0)).rejects.toMatchObject({ kind: 'malformed' });
      esplora.fault(/^\/block\/[0-9a-f]{64}$/, { status: 200, body: '{"id":1}', contentType: 'application/json' });
      await expect(client.block(GENESIS.hash)).rejects.toMatchObject({ kind: 'malformed' });
    });

    it('says "network" when nothing listens, and checks its arguments before asking', async () => {
      const closed = await startTestEsplora();
      const url = closed.url;
      await closed.close();
      await expect(new EsploraClient({ baseUrl: url }).tipHeight()).rejects.toMatchObject({ kind: 'network' });
      expect(() => client.blockHashAtHeight(-1)).toThrow(RangeError);
      expect(() => client.rawBlock('xyz')).toThrow(RangeError);
      expect(() => new EsploraClient({ baseUrl: 'ftp://example.org' })).toThrow(TypeError);
    });
  });

  describe('BitcoinReader', () => {
    it('head() is the tip height (the reader built from the base URL alone, as BITCOIN_ESPLORA_URL gives it)', async () => {
      const fromUrl = new BitcoinReader({ esplora: esplora.url });
      expect(await fromUrl.head()).toBe(BLOCK_542213.height + 1);
      expect(fromUrl.network).toBe('bitcoin');
    });

    it('blockHash(height) is the hash there, or null (404)', async () => {
      expect(await reader.blockHash(BLOCK_542213.height)).toBe(BLOCK_542213.hash);
      expect(await reader.blockHash(BLOCK_542213.height + 1)).toBeNull();
    });

    it('block(height) scans the raw block: hash, parent hash, the transfer to the watched bc1q address', async () => {
      const watched = new FakeWatched([BLOCK_542213.segwit.address]);
      const scanned = await reader.block(BLOCK_542213.height, watched);
      expect(scanned).toEqual({
        height: BLOCK_542213.height,
        hash: BLOCK_542213.hash,
        time: BLOCK_542213.time,
        parentHash: BLOCK_542213.parentHash,
        transfers: [
          {
            network: 'bitcoin',
            txHash: BLOCK_542213.segwit.txid,
            index: 1,
            asset: 'BTC',
            amount: 1150n,
            to: BLOCK_542213.segwit.address,
            from: null,
            block: { height: BLOCK_542213.height, hash: BLOCK_542213.hash, time: BLOCK_542213.time },
          },
        ],
      });
      expect(esplora.requests).toEqual([`/block-height/${BLOCK_542213.height}`, `/block/${BLOCK_542213.hash}/raw`]);
      expect(watched.calls).toHaveLength(1);
    });

    it('block(height) of the genesis block: all-zero parent, no transfers', async () => {
      expect(await reader.block(0, new FakeWatched([]))).toEqual({ height: 0, hash: GENESIS.hash, time: GENESIS.time, parentHash: GENESIS.parentHash, transfers: [] });
    });

    it('block(height) is null past the tip, and when the indexer lost the bytes of the hash it just gave', async () => {
      expect(await reader.block(BLOCK_542213.height + 1, new FakeWatched([]))).toBeNull();
      esplora.fault(/\/raw$/, { status: 404, body: 'Block not found' });
      expect(await reader.block(BLOCK_542213.height, new FakeWatched([]))).toBeNull();
    });

    it('block(height) throws on a server error, a timeout, or bytes that are another block', async () => {
      const undo = esplora.fault(/\/raw$/, { status: 502, body: 'Bad Gateway' });
      await expect(reader.block(BLOCK_542213.height, new FakeWatched([]))).rejects.toMatchObject({ kind: 'status', status: 502 });
      undo();

      const undoHang = esplora.fault(/\/raw$/, 'hang');
      const impatient = new BitcoinReader({ esplora: { baseUrl: esplora.url, timeoutMs: 300 } });
      await expect(impatient.block(BLOCK_542213.height, new FakeWatched([]))).rejects.toMatchObject({ kind: 'timeout' });
      undoHang();

      esplora.fault(/\/raw$/, { status: 200, body: bitcoinFixture(GENESIS.file), contentType: 'application/octet-stream' });
      const error = await reader.block(BLOCK_542213.height, new FakeWatched([])).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BitcoinDecodeError);
      expect((error as Error).message).toContain(`got block ${GENESIS.hash}`);
    });

    it('block(height) throws on bytes that do not decode (truncated answer)', async () => {
      esplora.fault(/\/raw$/, { status: 200, body: bitcoinFixture(BLOCK_542213.file).subarray(0, 1000), contentType: 'application/octet-stream' });
      await expect(reader.block(BLOCK_542213.height, new FakeWatched([]))).rejects.toBeInstanceOf(BitcoinDecodeError);
    });
  });
});

describe('BitcoinReader.mempool: an address\'s transactions in the mempool and lately mined (GET /address/:address/txs; 0023 addendum, 2026-11-29)', () => {
  let esplora: TestEsplora;
  let chain: LocalBitcoinChain;
  let reader: BitcoinReader;
  const ADDRESS = 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn';
  const OTHER = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

  beforeAll(async () => {
    esplora = await startTestEsplora();
    chain = new LocalBitcoinChain(esplora);
    chain.mine();
    reader = new BitcoinReader({ esplora: esplora.url });
  });
  afterAll(async () => {
    await esplora.close();
  });

  it('a broadcast transaction is pending (its outputs to the address summed), mined once a block carries it, gone when dropped', async () => {
    const tx = chain.pay([
      { address: ADDRESS, sats: 30_000n },
      { address: OTHER, sats: 99_000n },
      { address: ADDRESS, sats: 20_000n },
    ]);
    const dropped = chain.pay([{ address: ADDRESS, sats: 5_000n }]);
    expect(await reader.mempool(ADDRESS)).toEqual({ network: 'bitcoin', address: ADDRESS, pending: [], mined: [] });
    chain.broadcast(tx);
    chain.broadcast(dropped);
    const seen = await reader.mempool(ADDRESS);
    expect(seen.pending).toEqual([
      { network: 'bitcoin', txHash: dropped.txid, asset: 'BTC', amount: 5_000n, to: ADDRESS },
      { network: 'bitcoin', txHash: tx.txid, asset: 'BTC', amount: 50_000n, to: ADDRESS },
    ]);
    expect(seen.mined).toEqual([]);
    expect((await reader.mempool(OTHER)).pending).toEqual([{ network: 'bitcoin', txHash: tx.txid, asset: 'BTC', amount: 99_000n, to: OTHER }]);

    chain.mine([tx]);
    chain.evict(dropped);
    expect(await reader.mempool(ADDRESS)).toEqual({ network: 'bitcoin', address: ADDRESS, pending: [], mined: [tx.txid] });
    expect(esplora.requests).toContain(`/address/${ADDRESS}/txs`);
  });

  it('refuses an answer that is not a list of transactions, and an address that cannot be one', async () => {
    const undo = esplora.fault(/^\/address\//, { status: 200, body: '{"txid":1}', contentType: 'application/json' });
    await expect(reader.mempool(ADDRESS)).rejects.toMatchObject({ name: 'EsploraError', kind: 'malformed' });
    undo();
    const bad = esplora.fault(/^\/address\//, { status: 200, body: JSON.stringify([{ txid: 'ab'.repeat(32), status: { confirmed: false }, vout: [{ value: 1.5 }] }]), contentType: 'application/json' });
    await expect(reader.mempool(ADDRESS)).rejects.toMatchObject({ kind: 'malformed' });
    bad();
    await expect(reader.mempool('../blocks/tip/height')).rejects.toBeInstanceOf(RangeError);
  });
});
