import { type Address, type KeyPairSigner, address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction, getTransferInstruction } from '@solana-program/token';
import { type SolanaRpcBlock, TOKEN_PROGRAM, base58Encode, defaultRegistry } from '@lib/chains';
import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { ChainWatchers } from '@lib/payments';
import { Client, TestApi, appPerSuite, businessWithKey, startApp } from '../support/fixtures';
import { eventually } from '../support/eventually';
import { TickerServer, startTickerServer } from '../rates/ticker-server';
import { type Executed, LocalLedger, SOL } from './solana/local-ledger';
import { SolanaRpcStandIn } from './solana/rpc-stand-in';

/**
 * Real money in on a local Solana ledger (issue 11; the live EVM suite's shape): litesvm executes
 * the customer's transactions — SOL transfers, SPL transfers of USDC at mainnet USDC's own mint
 * address (written into the ledger), so the service watches the registry's mint — and the
 * JSON-RPC stand-in serves them as blocks slot after slot, with agave's answers. The service
 * watches it through SOLANA_RPC_URL (the mainnet genesis hash the stand-in answers); a LIVE
 * business with a created wallet takes the payments: detected, 32 slots, succeeded — or not
 * credited (failed transaction, another mint), late (needs_review), withdrawn by a fork.
 */
const USDC_MINT = defaultRegistry.assetOn('USDC', 'solana').contract as Address;
const USDC = 1_000_000n;

describe('a live business takes real SOL and USDC on a local Solana ledger (litesvm), watched by the service', () => {
  let ledger: LocalLedger;
  let customer: KeyPairSigner;
  let node: SolanaRpcStandIn;
  let ticker: TickerServer;
  /** The newest served block (the stand-in's confirmed tip). */
  let tip: { slot: number; hash: string };

  const suite = appPerSuite(
    async () => {
      ledger = new LocalLedger();
      customer = await ledger.wallet(1_000n * SOL);
      ledger.mintAt(USDC_MINT, customer.address, 6);
      await ledger.mintTo(customer, USDC_MINT, customer.address, 1_000_000n * USDC);
      node = new SolanaRpcStandIn(); // answers mainnet-beta's genesis hash
      await node.start();
      serve(ledger.produceBlock());
      ticker = await startTickerServer();
      ticker.set('SOL-USD', { kind: 'price', price: '150.00' });
      return startApp('postgres', { RATES_URL: ticker.url, SOLANA_RPC_URL: node.url, CHAIN_POLL_MS: '100', QUOTE_TTL_SECONDS: '60' });
    },
    async (api: TestApi) => {
      const shop = (await businessWithKey(api, false, 'Live Solana Shop')).client;
      expect((await shop.post('/wallet', { type: 'created' })).status).toBe(201);
      // a quote opened now has ended by the time the last tests run (60 s)
      const latePayment = await shop.createPayment({ amount: 500, currency: 'USD' });
      const late = await shop.openCheckout(latePayment, { asset: 'USDC', network: 'solana' });
      return { shop, late: { payment: latePayment, checkout: late } };
    },
  );
  afterAll(async () => {
    await node?.close();
    await ticker?.close();
  });

  /** Serves a produced block as the new confirmed tip. */
  function serve(produced: { slot: number; block: SolanaRpcBlock }): number {
    node.blocks.set(produced.slot, produced.block);
    node.tip = produced.slot;
    tip = { slot: produced.slot, hash: produced.block.blockhash };
    return produced.slot;
  }
  /** The transactions sent since the last block, in a block (a skipped slot after it). */
  const mine = (): number => serve(ledger.produceBlock(1));
  /** Blocks until `slot` has `count` confirmations (slots, skipped ones included). */
  function confirm(slot: number, count = 32): void {
    while (node.tip < slot + count - 1) mine();
  }
  /** The watcher has scanned up to the tip. */
  const caughtUp = () =>
    eventually(
      () => suite.api.app.get(ChainWatchers).status()[0],
      (s) => s.height === node.tip,
      { what: `watcher at slot ${node.tip}` },
    );

  const checkoutOf = (shop: Client, id: string) => shop.get(`/checkouts/${id}`).then((r) => r.body.data);
  const program = address(TOKEN_PROGRAM);
  const ataOf = async (owner: Address, mint: Address = USDC_MINT) => (await findAssociatedTokenPda({ owner, mint, tokenProgram: program }))[0];
  /** The customer's wallet paying `amounts` of USDC to `owner` in ONE transaction (one transferChecked each; the recipient's account created first). */
  async function payUsdc(owner: Address, ...amounts: bigint[]): Promise<Executed> {
    const [source, destination] = [await ataOf(customer.address), await ataOf(owner)];
    return ledger.send(customer, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: customer, ata: destination, owner, mint: USDC_MINT }),
      ...amounts.map((amount) => getTransferCheckedInstruction({ source, mint: USDC_MINT, destination, authority: customer, amount, decimals: 6 })),
    ]);
  }

  it('SOL: quoted from the live rate, paid with a System transfer, 32 slots, succeeded; the signature is kept as written (base58), with its Solscan link', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 3000, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'SOL', network: 'solana' });
    expect(checkout.crypto).toMatchObject({ amount: '0.2', network: 'solana', rate: { amount: 15_000, currency: 'USD' } });
    expect(checkout.crypto.payment_uri).toBe(`solana:${checkout.crypto.address}?amount=0.2`);
    const tx = await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: checkout.crypto.address as Address, amount: 200_000_000n })]);
    const slot = mine();

    const confirming = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming' && c.confirmations.current === 1, { what: 'SOL transfer detected' });
    expect(confirming.crypto).toMatchObject({ tx_hash: tx.signature, received_amount: '0.2', detected_network: 'solana', explorer_url: `https://solscan.io/tx/${tx.signature}` });
    expect(confirming.confirmations).toEqual({ current: 1, required: 32 });
    confirm(slot);
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'paid in SOL' });
    const types = paid.events.map((e: { type: string }) => e.type);
    expect(types.filter((t: string) => t === 'confirmation')).toHaveLength(32);
    expect(types.at(-1)).toBe('succeeded');
    expect(paid.settlement).toMatchObject({ asset: 'SOL', network: 'solana', amount: '0.2', tx_hash: tx.signature, address: checkout.crypto.address, explorer_url: `https://solscan.io/tx/${tx.signature}` });
    expect(paid.method).toMatchObject({ from_address: customer.address, tx_hash: tx.signature });
    const receipt = (await shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
    expect(receipt.transaction).toEqual({ hash: tx.signature, url: `https://solscan.io/tx/${tx.signature}` });
    expect(receipt.transfers).toEqual([expect.objectContaining({ hash: tx.signature, network: 'solana', amount: '0.2' })]);
  });

  it('USDC: two transfers to the checkout address in ONE transaction (transferChecked and a plain transfer) are credited in full, once', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 1000, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'solana' });
    expect(checkout.crypto.payment_uri).toBe(`solana:${checkout.crypto.address}?amount=10&spl-token=${USDC_MINT}`);
    const owner = checkout.crypto.address as Address;
    const [source, destination] = [await ataOf(customer.address), await ataOf(owner)];
    const tx = await ledger.ok(customer, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: customer, ata: destination, owner, mint: USDC_MINT }),
      getTransferCheckedInstruction({ source, mint: USDC_MINT, destination, authority: customer, amount: 6_000_000n, decimals: 6 }),
      getTransferInstruction({ source, destination, authority: customer, amount: 4_000_000n }),
    ]);
    const slot = mine();
    const confirming = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming', { what: 'USDC detected' });
    expect(confirming.crypto).toMatchObject({ tx_hash: tx.signature, received_amount: '10', remaining_amount: null });
    confirm(slot);
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status !== 'pending', { what: 'payment decided' });
    expect(paid).toMatchObject({ status: 'succeeded', amount_received: 1000, settlement: { asset: 'USDC', amount: '10', tx_hash: tx.signature } });
    expect(paid.events.filter((e: { type: string }) => e.type === 'detected')).toHaveLength(1);
  });

  it('USDC to the smallest unit: 0.000001 short is underpaid by exactly that, 0.000001 over succeeds with exactly that overpaid', async () => {
    const { shop } = suite;
    const [short, over] = [await shop.createPayment({ amount: 1234, currency: 'USD' }), await shop.createPayment({ amount: 1234, currency: 'USD' })];
    const [shortCheckout, overCheckout] = [await shop.openCheckout(short, { asset: 'USDC', network: 'solana' }), await shop.openCheckout(over, { asset: 'USDC', network: 'solana' })];
    expect(shortCheckout.crypto.amount).toBe('12.34');
    const [a, b] = [await payUsdc(shortCheckout.crypto.address, 12_339_999n), await payUsdc(overCheckout.crypto.address, 12_340_001n)];
    expect([a.ok, b.ok]).toEqual([true, true]);
    confirm(mine());
    const underpaid = await eventually(() => shop.payment(short.id), (p) => p.status === 'underpaid', { what: 'underpaid' });
    expect(underpaid.events.find((e: { type: string }) => e.type === 'underpaid').data).toMatchObject({ expected: '12.34', received: '12.339999' });
    expect((await checkoutOf(shop, shortCheckout.id)).crypto).toMatchObject({
      received_amount: '12.339999',
      remaining_amount: '0.000001',
      remaining_payment_uri: `solana:${shortCheckout.crypto.address}?amount=0.000001&spl-token=${USDC_MINT}`,
    });
    const overpaid = await eventually(() => shop.payment(over.id), (p) => p.status === 'succeeded', { what: 'overpaid succeeded' });
    expect(overpaid.method).toMatchObject({ amount: '12.340001', expected_amount: '12.34', overpaid_amount: '0.000001' });
  });

  it('a failed transaction, a token of another mint and SOL sent to a USDC checkout are never credited; the right payment after them is', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 500, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'solana' });
    const owner = checkout.crypto.address as Address;
    const failed = await payUsdc(owner, 1_000_000_000n * USDC); // more than the customer holds: err set, only the fee moved
    expect(failed.ok).toBe(false);
    const fake = await ledger.createMint(customer, 6); // "USDC" of another mint, 6 decimals like the real one
    await ledger.mintTo(customer, fake, customer.address, 100n * USDC);
    const [source, destination] = [await ataOf(customer.address, fake), await ataOf(owner, fake)];
    const wrongMint = await ledger.ok(customer, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: customer, ata: destination, owner, mint: fake }),
      getTransferCheckedInstruction({ source, mint: fake, destination, authority: customer, amount: 5_000_000n, decimals: 6 }),
    ]);
    const sol = await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: owner, amount: SOL })]);
    confirm(mine());
    await caughtUp();
    const untouched = await checkoutOf(shop, checkout.id);
    expect(untouched).toMatchObject({ status: 'open', crypto: { received_amount: '0', tx_hash: null } });
    expect([failed.signature, wrongMint.signature, sol.signature]).not.toContain(untouched.crypto.tx_hash);

    const paidTx = await payUsdc(owner, 5_000_000n);
    confirm(mine());
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'paid with real USDC' });
    expect(paid.events.filter((e: { type: string }) => e.type === 'detected').map((e: { data: { tx_hash: string } }) => e.data.tx_hash)).toEqual([paidTx.signature]);
  });

  it('reported again (a watcher restarted from a checkpoint taken before the payment: the same slots scanned twice): credited once, each confirmation once', async () => {
    const { shop } = suite;
    const payment = await shop.createPayment({ amount: 700, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'solana' });
    const before = node.tip;
    await caughtUp();
    await payUsdc(checkout.crypto.address, 7_000_000n);
    const slot = mine();
    for (let i = 0; i < 10; i++) mine();
    await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming' && c.confirmations.current >= 10, { what: 'detected, confirming' });
    await caughtUp();

    // the watcher stops, and its saved state goes back to before the payment's slot, as after a
    // crash between its reports and their save: the slots are scanned and reported again
    const watchers = suite.api.app.get(ChainWatchers);
    await watchers.onApplicationShutdown();
    const db = suite.api.app.get<symbol, Database>(DATABASE);
    const { rows } = await db.query<{ recent_blocks: [number, string][] | string }>(`SELECT recent_blocks FROM chain_cursors WHERE network = 'solana'`);
    const recent = typeof rows[0].recent_blocks === 'string' ? (JSON.parse(rows[0].recent_blocks) as [number, string][]) : rows[0].recent_blocks;
    await db.query(`UPDATE chain_cursors SET next_height = $1, recent_blocks = $2::jsonb WHERE network = 'solana'`, [before + 1, JSON.stringify(recent.filter(([height]) => height <= before))]);
    await db.query(`DELETE FROM chain_transfers WHERE network = 'solana'`);
    for (let i = 0; i < 5; i++) mine();
    await watchers.onApplicationBootstrap();

    confirm(slot);
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'paid once' });
    expect(paid.events.filter((e: { type: string }) => e.type === 'detected')).toHaveLength(1);
    expect(paid.events.filter((e: { type: string }) => e.type === 'confirmation').map((e: { data: { current: number } }) => e.data.current)).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
    expect(paid).toMatchObject({ amount_received: 700, settlement: { amount: '7' } });
    expect((await checkoutOf(shop, checkout.id)).crypto.received_amount).toBe('7');
    expect(watchers.status()[0].transfersDetected).toBe(1); // the restarted watcher did report it again
  });

  it('a transfer to the address of a checkout whose quote ended: needs_review (late), the payment with it; not a success', async () => {
    const { shop, late } = suite;
    await eventually(() => checkoutOf(shop, late.checkout.id), (c) => c.status === 'expired', { what: 'quote ended', timeoutMs: 90_000, intervalMs: 1000 });
    const tx = await payUsdc(late.checkout.crypto.address, 5_000_000n);
    confirm(mine());
    const review = await eventually(() => checkoutOf(shop, late.checkout.id), (c) => c.status === 'needs_review', { what: 'late transfer seen' });
    expect(review).toMatchObject({ review_reason: 'late', crypto: { tx_hash: tx.signature, received_amount: '5', detected_network: 'solana' } });
    const reviewed = await eventually(() => shop.payment(late.payment.id), (p) => p.status === 'needs_review', { what: 'payment in review' });
    expect(reviewed.events.map((e: { type: string }) => e.type)).not.toContain('succeeded');
  }, 120_000);

  // ---- forks: blocks written here (litesvm executes the transactions; the chain's shape is the test's) ----

  let salt = 0;
  /** A block at `slot` on top of `parent` carrying `transactions` (served; the tip moves to it unless told otherwise). */
  function block(slot: number, parent: { slot: number; hash: string }, transactions: Executed[] = []): { slot: number; hash: string } {
    const hash = base58Encode(Uint8Array.from({ length: 32 }, (_, i) => (slot * 31 + i * 17 + ++salt * 7) % 256));
    node.blocks.set(slot, { blockhash: hash, previousBlockhash: parent.hash, parentSlot: parent.slot, blockHeight: null, blockTime: null, transactions: transactions.map((t) => t.rpc) });
    return { slot, hash };
  }
  /** `count` empty blocks on top of `from`, served as the tip. */
  function extend(from: { slot: number; hash: string }, count: number): { slot: number; hash: string } {
    let last = from;
    for (let i = 0; i < count; i++) last = block(last.slot + 1, last);
    node.tip = last.slot;
    tip = last;
    return last;
  }
  /** Executes the customer's transaction in litesvm without putting it in a produced block. */
  async function signed(send: () => Promise<Executed>): Promise<Executed> {
    const tx = await send();
    ledger.produceBlock(); // takes it out of the ledger's pending list; the test places it
    return tx;
  }

  /** A USDC checkout of `amount` (US cents) and the customer's transfer of `units` to it, signed but in no block yet. */
  async function checkoutAndTransfer(shop: Client, amount: number, units: bigint) {
    const payment = await shop.createPayment({ amount, currency: 'USD' });
    const checkout = await shop.openCheckout(payment, { asset: 'USDC', network: 'solana' });
    const tx = await signed(() => payUsdc(checkout.crypto.address, units));
    return { payment, checkout, tx };
  }
  /** The node forgets every block above `slot` (the cluster left the fork they were on). */
  function forgetAbove(slot: number) {
    for (const s of [...node.blocks.keys()].filter((s) => s > slot)) node.blocks.delete(s);
  }
  const detections = (payment: { events: { type: string }[] }) => payment.events.map((e) => e.type).filter((t) => t === 'detected' || t === 'withdrawn');

  it('a fork drops the slot that carried the transfer: withdrawn (the checkout takes a transfer again); the transaction landing on the new fork is credited once', async () => {
    const { shop } = suite;
    const { payment, checkout, tx } = await checkoutAndTransfer(shop, 800, 8_000_000n);
    const parent = tip;
    const carrying = block(parent.slot + 1, parent, [tx]);
    extend(carrying, 2);
    await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming' && c.confirmations.current === 3, { what: 'detected, 3 slots' });

    // the cluster settles on a fork that skipped that slot
    forgetAbove(parent.slot);
    const fork = extend(block(parent.slot + 2, parent), 5);
    const reopened = await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'open', { what: 'withdrawn' });
    expect(reopened.crypto).toMatchObject({ received_amount: '0', tx_hash: null });

    // the same signed transaction lands on the new fork (its blockhash still valid): counted again, once
    const landed = block(fork.slot + 1, fork, [tx]);
    extend(landed, 31);
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'paid on the new fork' });
    expect(detections(paid)).toEqual(['detected', 'withdrawn', 'detected']);
    expect(paid).toMatchObject({ amount_received: 800, settlement: { amount: '8', tx_hash: tx.signature } });
  });

  it('forks that go back (the block carrying the transfer, another fork without it, then the first fork again): credited again when its block returns', async () => {
    const { shop } = suite;
    const { payment, checkout, tx } = await checkoutAndTransfer(shop, 900, 9_000_000n);
    const parent = tip;
    const first = [block(parent.slot + 1, parent, [tx])];
    first.push(block(parent.slot + 2, first[0]));
    node.tip = parent.slot + 2;
    await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'confirming' && c.confirmations.current === 2, { what: 'detected in the first fork' });
    const firstBlocks = first.map((b) => [b.slot, node.blocks.get(b.slot)!] as const);

    forgetAbove(parent.slot);
    extend(block(parent.slot + 2, parent), 3); // the other fork skips the slot: the transfer is withdrawn
    await eventually(() => checkoutOf(shop, checkout.id), (c) => c.status === 'open', { what: 'withdrawn' });

    // the nodes settle on the first fork after all (a load-balanced RPC whose nodes disagreed, or a fork switch back): the same block, the same hash
    forgetAbove(parent.slot);
    for (const [slot, served] of firstBlocks) node.blocks.set(slot, served);
    extend(first[1], 40);
    const paid = await eventually(() => shop.payment(payment.id), (p) => p.status !== 'pending', { what: 'payment decided' });
    expect(paid).toMatchObject({ status: 'succeeded', amount_received: 900, settlement: { amount: '9', tx_hash: tx.signature } });
    expect(detections(paid)).toEqual(['detected', 'withdrawn', 'detected']);
  });
});
