import { type Address, type KeyPairSigner, address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { ChainWatcher, type SolanaReader, type SolanaRpcBlock, TOKEN_PROGRAM, base58Encode, createSolanaReader } from '@lib/chains';
import { type LedgerEntry, RecordingSink, SetWatched, watchSuite } from '../../support/chain-watch';
import { eventually } from '../../support/eventually';
import { STORE_KINDS } from '../../support/fixtures';
import { type Executed, LocalLedger, SOL } from './local-ledger';
import { SolanaRpcStandIn } from './rpc-stand-in';

/**
 * The generic ChainWatcher over SolanaReader: blocks of transactions litesvm executed, served by
 * the JSON-RPC stand-in whose confirmed tip the test moves, with skipped slots. Slots are the
 * heights: the watcher reads them through blocks() (getBlocks leaves skipped slots out), counts
 * confirmations in slots up to the registry's 32, and follows a fork through the parent hashes.
 */
let ledger: LocalLedger;
let customer: KeyPairSigner;
let usdc: Address;
let node: SolanaRpcStandIn;
let reader: SolanaReader;

/** A fresh ledger (a customer holding SOL and a 6-decimal USDC) and a node serving it, per test: forks leave the stand-in's chain behind. */
async function freshChain(): Promise<void> {
  ledger = new LocalLedger();
  customer = await ledger.wallet(1_000n * SOL);
  usdc = await ledger.createMint(customer, 6);
  await ledger.mintTo(customer, usdc, customer.address, 1_000_000_000_000n);
  node = new SolanaRpcStandIn();
  serve(ledger.produceBlock());
  reader = await createSolanaReader({ url: await node.start(), mints: { USDC: usdc } });
}

/** Serves a produced block and confirms it (the tip moves to its slot). */
function serve(produced: { slot: number; block: SolanaRpcBlock }): number {
  node.blocks.set(produced.slot, produced.block);
  node.tip = produced.slot;
  return produced.slot;
}

/** Empty blocks until the tip is at least `slot`, skipping a slot after every other one. */
function produceUntil(slot: number): void {
  let i = 0;
  while (node.tip < slot) serve(ledger.produceBlock(i++ % 2));
}

async function payUsdc(owner: Address, amount: bigint): Promise<Executed> {
  const program = address(TOKEN_PROGRAM);
  const [source] = await findAssociatedTokenPda({ owner: customer.address, mint: usdc, tokenProgram: program });
  const [destination] = await findAssociatedTokenPda({ owner, mint: usdc, tokenProgram: program });
  return ledger.ok(customer, [
    getCreateAssociatedTokenIdempotentInstruction({ payer: customer, ata: destination, owner, mint: usdc }),
    getTransferCheckedInstruction({ source, mint: usdc, destination, authority: customer, amount, decimals: 6 }),
  ]);
}

describe.each(STORE_KINDS)('Solana watcher over the RPC stand-in (%s store)', (kind) => {
  const suite = watchSuite(kind, 'solwatch', { perTest: true });
  beforeEach(() => freshChain());
  afterEach(() => node.close());

  function watcher(watched: SetWatched, sink: RecordingSink): ChainWatcher {
    const w = new ChainWatcher({ reader, watched, sink, db: suite.db, startHeight: node.tip + 1, pollMs: 20, backoffMs: 50, backoffMaxMs: 200 });
    suite.watch(w);
    return w;
  }

  const entry = (sink: RecordingSink, tx: Executed, index: number, ok: (e: LedgerEntry) => boolean, what: string) =>
    eventually(() => sink.ledger.get(RecordingSink.key({ network: 'solana', txHash: tx.signature, index })), (e) => e !== undefined && ok(e), { what }) as Promise<LedgerEntry>;

  it('reports SOL and USDC transfers once, moves past skipped slots, and counts confirmations in slots up to 32', async () => {
    const shop = await ledger.address();
    const sink = new RecordingSink();
    const w = watcher(new SetWatched([shop], 'solana'), sink);
    expect(w.status().confirmationsRequired).toBe(32);
    w.start();

    const solTx = await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: shop, amount: 3n * SOL + 3n })]);
    const solSlot = serve(ledger.produceBlock(3)); // three slots skipped after it
    const usdcTx = await payUsdc(shop, 25_000_000n);
    const usdcSlot = serve(ledger.produceBlock());
    expect(usdcSlot).toBe(solSlot + 4);

    const sol = await entry(sink, solTx, 999, (e) => e.detections === 1, 'SOL transfer detected');
    const paid = await entry(sink, usdcTx, 1999, (e) => e.detections === 1, 'USDC transfer detected');
    expect(sol.transfer).toMatchObject({ asset: 'SOL', amount: 3n * SOL + 3n, to: shop, from: customer.address, block: { height: solSlot } });
    expect(paid.transfer).toMatchObject({ asset: 'USDC', amount: 25_000_000n, to: shop, block: { height: usdcSlot, hash: node.blocks.get(usdcSlot)?.blockhash } });
    await eventually(() => paid.confirmations.at(-1), (n) => n === 1, { what: 'USDC: 1 confirmation' });
    // slots solSlot … usdcSlot, the skipped ones included
    await eventually(() => sol.confirmations.at(-1), (n) => n === 5, { what: 'SOL: 5 confirmations' });

    produceUntil(usdcSlot + 40);
    await eventually(() => paid.confirmations.at(-1), (n) => n === 32, { what: 'USDC final at 32 slots' });
    await eventually(() => w.status().height, (h) => h === node.tip, { what: 'caught up' });
    expect(sol.confirmations.at(-1)).toBe(32);
    expect([sol.detections, paid.detections, sol.withdrawals, paid.withdrawals]).toEqual([1, 1, 0, 0]);
    expect(w.status()).toMatchObject({ pending: 0, orphaned: 0, consecutiveFailures: 0 });
    // skipped slots were never asked for one by one
    const asked = node.requests.filter((r) => r.method === 'getBlock' && (r.params[1] as { transactionDetails: string }).transactionDetails === 'full').map((r) => r.params[0] as number);
    expect(asked.filter((slot) => !node.blocks.has(slot))).toEqual([]);
  });

  it('a fork before 32 slots: the block carrying the transfer leaves the chain and the transfer is withdrawn', async () => {
    const shop = await ledger.address();
    const sink = new RecordingSink();
    const w = watcher(new SetWatched([shop], 'solana'), sink);
    w.start();
    serve(ledger.produceBlock());
    const parentSlot = node.tip;
    const parent = node.blocks.get(parentSlot) as SolanaRpcBlock;

    const tx = await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: shop, amount: SOL })]);
    const forkedSlot = serve(ledger.produceBlock());
    serve(ledger.produceBlock());
    const transfer = await entry(sink, tx, 999, (e) => e.confirmations.at(-1) === 2, 'detected, 2 confirmations');
    expect(transfer.transfer.block.height).toBe(forkedSlot);

    // the cluster settles on another fork: the slot that carried the transfer is skipped there,
    // and new blocks build on the parent
    for (const slot of [...node.blocks.keys()].filter((s) => s >= forkedSlot)) node.blocks.delete(slot);
    let previous = { slot: parentSlot, hash: parent.blockhash };
    for (let slot = forkedSlot + 1; slot <= forkedSlot + 4; slot++) {
      const hash = base58Encode(Uint8Array.from({ length: 32 }, (_, i) => (slot * 7 + i * 13) % 256));
      node.blocks.set(slot, { blockhash: hash, previousBlockhash: previous.hash, parentSlot: previous.slot, blockHeight: null, blockTime: null, transactions: [] });
      previous = { slot, hash };
    }
    node.tip = forkedSlot + 4;

    await eventually(() => transfer.withdrawals, (n) => n === 1, { what: 'transfer withdrawn' });
    await eventually(() => w.status().height, (h) => h === node.tip, { what: 'caught up on the new fork' });
    expect(transfer.detections).toBe(1);
    expect(w.status()).toMatchObject({ pending: 0 });
    expect(w.status().reorgs).toBeGreaterThanOrEqual(1);
  });
});
