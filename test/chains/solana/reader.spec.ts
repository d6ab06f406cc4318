import { type Address, type KeyPairSigner, address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import {
  type ObservedTransfer,
  SolanaBlockUnavailableError,
  SolanaClusterMismatchError,
  type SolanaReader,
  SolanaRpcError,
  TOKEN_PROGRAM,
  createSolanaReader,
} from '@lib/chains';
import { type Executed, LocalLedger, type ProducedBlock, SOL } from './local-ledger';
import { SolanaRpcStandIn } from './rpc-stand-in';
import { TestWatched } from './watched';

/**
 * SolanaReader against a JSON-RPC stand-in on node:http that serves, in the RPC's shape, blocks
 * of transactions litesvm executed (LocalLedger): heads, blocks with their watched transfers,
 * skipped slots, slots not confirmed yet, block hashes, the node's errors.
 */
let ledger: LocalLedger;
let node: SolanaRpcStandIn;
let reader: SolanaReader;
let customer: KeyPairSigner;
let usdc: Address;
let shop: Address;
let reference: Address;
let watched: TestWatched;
let paidSol: Executed;
let paidUsdc: Executed;
let a: ProducedBlock; // SOL to the shop, SOL elsewhere
let b: ProducedBlock; // USDC with a reference, a failed transfer; two slots skipped after it
let c: ProducedBlock; // nothing watched
let d: ProducedBlock; // above the confirmed tip

beforeAll(async () => {
  ledger = new LocalLedger();
  customer = await ledger.wallet(100n * SOL);
  usdc = await ledger.createMint(customer, 6);
  await ledger.mintTo(customer, usdc, customer.address, 1_000_000_000n);
  shop = await ledger.address();
  reference = await ledger.address();
  const elsewhere = await ledger.address();
  watched = new TestWatched([shop], new Map([[reference, shop]]));
  ledger.produceBlock(); // the setup's transactions

  paidSol = await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: shop, amount: 2n * SOL + 1n })]);
  await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: elsewhere, amount: SOL })]);
  a = ledger.produceBlock();

  const tokenProgram = address(TOKEN_PROGRAM);
  const [source] = await findAssociatedTokenPda({ owner: customer.address, mint: usdc, tokenProgram });
  const [destination] = await findAssociatedTokenPda({ owner: shop, mint: usdc, tokenProgram });
  const pay = getTransferCheckedInstruction({ source, mint: usdc, destination, authority: customer, amount: 19_990_000n, decimals: 6 });
  paidUsdc = await ledger.ok(customer, [
    getCreateAssociatedTokenIdempotentInstruction({ payer: customer, ata: destination, owner: shop, mint: usdc }),
    { ...pay, accounts: [...pay.accounts, { address: reference, role: 0 }] },
  ]);
  const failed = await ledger.send(customer, [getTransferSolInstruction({ source: customer, destination: shop, amount: 1_000n * SOL })]);
  expect(failed.ok).toBe(false);
  b = ledger.produceBlock(2);

  await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: elsewhere, amount: SOL })]);
  c = ledger.produceBlock();
  d = ledger.produceBlock();

  node = new SolanaRpcStandIn();
  for (const produced of [a, b, c, d]) node.blocks.set(produced.slot, produced.block);
  node.tip = c.slot;
  reader = await createSolanaReader({ url: await node.start(), mints: { USDC: usdc }, timeoutMs: 2_000 });
});

afterAll(async () => {
  await node?.close();
});

beforeEach(() => {
  node.requests.length = 0;
  node.failures.clear();
  node.lagging.clear();
  node.httpStatus = null;
  node.hang = false;
});

const observed = (tx: Executed, produced: ProducedBlock, fields: Partial<ObservedTransfer>): ObservedTransfer => ({
  network: 'solana',
  txHash: tx.signature,
  index: 999,
  asset: 'SOL',
  amount: 0n,
  to: shop,
  from: customer.address,
  block: { height: produced.slot, hash: produced.block.blockhash, time: produced.block.blockTime as number },
  reference: null,
  ...fields,
});

const GET_BLOCK_CONFIG = { encoding: 'json', rewards: false, commitment: 'confirmed', transactionDetails: 'full', maxSupportedTransactionVersion: 0 };

describe('SolanaReader', () => {
  it('head(): the confirmed slot, after checking once that the node serves mainnet-beta', async () => {
    const fresh = await createSolanaReader({ url: node.url });
    expect(await fresh.head()).toBe(c.slot);
    expect(await fresh.head()).toBe(c.slot);
    expect(node.requests).toEqual([
      { method: 'getGenesisHash', params: [] },
      { method: 'getSlot', params: [{ commitment: 'confirmed' }] },
      { method: 'getSlot', params: [{ commitment: 'confirmed' }] },
    ]);
  });

  it('finalizedHead(): getSlot at finalized', async () => {
    node.finalized = b.slot;
    expect(await reader.finalizedHead()).toBe(b.slot);
    expect(node.requests).toEqual([{ method: 'getSlot', params: [{ commitment: 'finalized' }] }]);
  });

  it('a node of another cluster is refused; genesisHash null skips the check', async () => {
    node.genesisHash = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG'; // devnet
    try {
      await expect((await createSolanaReader({ url: node.url })).head()).rejects.toThrow(SolanaClusterMismatchError);
      expect(await (await createSolanaReader({ url: node.url, genesisHash: null })).head()).toBe(c.slot);
      expect(await (await createSolanaReader({ url: node.url, genesisHash: node.genesisHash })).head()).toBe(c.slot);
    } finally {
      node.genesisHash = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
    }
  });

  it('block(slot): getBlock in json with full transactions → hash, parentHash and the watched transfers (exact amounts, references, failures left out)', async () => {
    expect(await reader.block(a.slot, watched)).toEqual({
      height: a.slot,
      hash: a.block.blockhash,
      time: a.block.blockTime, // getBlock's blockTime: lateness is judged by it (0025 addendum, 2026-11-29)
      parentHash: a.block.previousBlockhash,
      transfers: [observed(paidSol, a, { amount: 2n * SOL + 1n })],
    });
    expect(await reader.block(b.slot, watched)).toEqual({
      height: b.slot,
      hash: b.block.blockhash,
      time: b.block.blockTime,
      parentHash: a.block.blockhash,
      transfers: [observed(paidUsdc, b, { asset: 'USDC', amount: 19_990_000n, index: 1999, reference })],
    });
    expect(await reader.block(c.slot, watched)).toEqual({ height: c.slot, hash: c.block.blockhash, time: c.block.blockTime, parentHash: b.block.blockhash, transfers: [] });
    expect(node.requests.map((r) => r.params)).toEqual([a.slot, b.slot, c.slot].map((slot) => [slot, GET_BLOCK_CONFIG]));
  });

  it('a skipped slot has no block (null), and neither has a slot above the confirmed tip', async () => {
    expect(await reader.block(b.slot + 1, watched)).toBeNull();
    expect(await reader.block(b.slot + 2, watched)).toBeNull();
    expect(await reader.block(d.slot, watched)).toBeNull();
    expect(await reader.blockHash(b.slot + 1)).toBeNull();
    expect(await reader.blockHash(d.slot)).toBeNull();
  });

  it('blocks(from, to): the slots that have a block (getBlocks), skipped ones left out, stopping at the tip; parent hashes chain across the gap', async () => {
    const scanned = await reader.blocks(a.slot, d.slot + 10, watched);
    expect(scanned.map((block) => block.height)).toEqual([a.slot, b.slot, c.slot]);
    expect(c.slot).toBe(b.slot + 3);
    expect(scanned[2].parentHash).toBe(scanned[1].hash);
    expect(scanned.flatMap((block) => block.transfers)).toEqual([
      observed(paidSol, a, { amount: 2n * SOL + 1n }),
      observed(paidUsdc, b, { asset: 'USDC', amount: 19_990_000n, index: 1999, reference }),
    ]);
    expect(node.requests[0]).toEqual({ method: 'getBlocks', params: [a.slot, d.slot + 10, { commitment: 'confirmed' }] });
    expect(node.requests.slice(1).map((r) => r.method)).toEqual(['getBlock', 'getBlock', 'getBlock']);
    // a range of skipped slots only: nothing, and no getBlock asked
    node.requests.length = 0;
    expect(await reader.blocks(b.slot + 1, b.slot + 2, watched)).toEqual([]);
    expect(node.requests.map((r) => r.method)).toEqual(['getBlocks']);
  });

  it('blocks(): a listed slot the node then does not serve ends the answer there, or fails it when it is the first', async () => {
    node.lagging.add(b.slot);
    expect((await reader.blocks(a.slot, c.slot, watched)).map((block) => block.height)).toEqual([a.slot]);
    node.lagging.add(a.slot);
    await expect(reader.blocks(a.slot, c.slot, watched)).rejects.toThrow(SolanaBlockUnavailableError);
  });

  it('blockHash(slot): getBlock without transactions', async () => {
    expect(await reader.blockHash(b.slot)).toBe(b.block.blockhash);
    expect(node.requests).toEqual([{ method: 'getBlock', params: [b.slot, { ...GET_BLOCK_CONFIG, transactionDetails: 'none' }] }]);
  });

  it('other node errors are thrown for the watcher to retry: a JSON-RPC error with its code, an HTTP error, a hung node', async () => {
    node.failures.set('getBlock', { code: -32015, message: 'Transaction version (1) is not supported by the requesting client.' });
    const error = await reader.block(a.slot, watched).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SolanaRpcError);
    expect(error).toMatchObject({ code: -32015, method: 'getBlock' });
    node.failures.set('getSlot', { code: -32005, message: 'Node is behind by 42 slots' });
    await expect(reader.head()).rejects.toThrow(/Node is behind/);

    node.failures.clear();
    node.httpStatus = 503;
    await expect(reader.head()).rejects.toThrow(/HTTP 503/);

    node.httpStatus = null;
    node.hang = true;
    const impatient = await createSolanaReader({ url: node.url, genesisHash: null, timeoutMs: 200 });
    await expect(impatient.head()).rejects.toThrow(/abort|timeout/i);
  });
});
