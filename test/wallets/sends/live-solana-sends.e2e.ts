import { randomBytes, randomUUID } from 'node:crypto';
import { mnemonicToSeedSync } from '@scure/bip39';
import { type Address, address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { derivePath } from 'ed25519-hd-key';
import { ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM, TOKEN_PROGRAM, associatedTokenAddress, base58Encode, defaultRegistry, loadSolanaWeb3 } from '@lib/chains';
import { closeInTurn } from '../../support/close';
import { eventually } from '../../support/eventually';
import type { PollLoop } from '@lib/timers';
import { TickerServer, startTickerServer } from '../../rates/ticker-server';
import { AccountsTestApp, startAccountsApp } from '../../accounts/support';
import { LocalLedger, SOL } from '../../chains/solana/local-ledger';
import { SolanaRpcStandIn } from '../../chains/solana/rpc-stand-in';
import { WalletSendsWorker } from '@lib/wallets';
import { Shop, liveShop, liveShopWithNewWallet, openCheckout, paymentDetected, send } from './support';

/**
 * SOL sends of a LIVE business relayed through a Solana node (decision 0040): litesvm (the real
 * SVM runtime) executes the transactions, a JSON-RPC stand-in serves its blocks to the service's
 * watcher (SOLANA_RPC_URL) and takes sendTransaction into litesvm (a node's preflight: a failing
 * transaction is refused), getTransaction answering the receipt poll. A customer pays a SOL
 * checkout (the funds the service tracks); the dashboard's base64 wire transaction, signed with the
 * key of that address derived from the wallet's phrase, is relayed, lands, and is confirmed,
 * valued from the live SOL rate. A transaction the node refuses is 409 transaction_rejected with
 * nothing recorded; the node answering 503 is 503 network_unavailable, and the retry with the same
 * key lands once. A USDC send (SPL transferChecked, the recipient's token account created in the
 * same transaction) from the address a USDC checkout was paid to — it holds no SOL — with the fee
 * paid by the SOL address, both signing: the mint is mainnet USDC's address, written into litesvm.
 * External records on Solana: matched against getTransaction's transfers — confirmed (valued at
 * the rate then) when one is from the wallet, of the asset, to the recipient, of the amount;
 * failed with the reason otherwise. A send is confirmed only once its slot is 32 deep under the
 * node's confirmed slot, as the watcher counts incoming transfers (skipped slots count): the tests
 * serve a block that far above what they wait for.
 */
describe('SOL and USDC sends of a live business relayed through a Solana node (litesvm)', () => {
  let ledger: LocalLedger;
  let node: SolanaRpcStandIn;
  let ticker: TickerServer;
  let app: AccountsTestApp;
  let shop: Shop;
  let web3: Awaited<ReturnType<typeof loadSolanaWeb3>>;
  let owner: InstanceType<Awaited<ReturnType<typeof loadSolanaWeb3>>['Keypair']>;
  let phrase: string;
  let customer: Awaited<ReturnType<LocalLedger['wallet']>>;
  const USDC = address(defaultRegistry.assetOn('USDC', 'solana').contract!);

  /** Serves the transactions since the last block as a new block, and moves the tip to it. */
  const serveBlock = () => {
    const { slot, block } = ledger.produceBlock();
    node.blocks.set(slot, block);
    node.tip = slot;
  };

  /** The confirmations (slots) incoming transfers need on Solana: what a send's slot needs before the service takes it. */
  const REQUIRED = defaultRegistry.confirmationsRequired('solana');
  /** Serves a block REQUIRED − 1 slots above the tip (the slots between skipped by their leaders): what was served so far is final. */
  const finalise = () => {
    ledger.svm.warpToSlot(BigInt(node.tip + REQUIRED - 1));
    serveBlock();
  };

  beforeAll(async () => {
    web3 = await loadSolanaWeb3();
    ledger = new LocalLedger();
    customer = await ledger.wallet(1_000n * SOL);
    ledger.mintAt(USDC, customer.address, 6);
    await ledger.mintTo(customer, USDC, customer.address, 1_000_000_000n);
    node = new SolanaRpcStandIn();
    serveBlock();
    // the node's preflight: litesvm executes the transaction; a failing one is refused, a good one lands in the next block
    node.onSendTransaction = (wire) => {
      const executed = ledger.submit(wire);
      if (!executed.ok) throw { code: -32002, message: `Transaction simulation failed: ${JSON.stringify(executed.meta.err)}` };
      serveBlock();
      return executed.signature;
    };
    const url = await node.start();
    ticker = await startTickerServer();
    ticker.set('SOL-USD', { kind: 'price', price: '150.00' });
    app = await startAccountsApp('embedded', { RATES_URL: ticker.url, SOLANA_RPC_URL: url, CHAIN_POLL_MS: '100', QUOTE_TTL_SECONDS: '60' });
    ({ shop, phrase } = await liveShopWithNewWallet(app, 'Live Bakery'));
    // a customer pays 30 USD in SOL (0.2 SOL at 150.00) with a real transfer: the address's funds
    const checkout = await openCheckout(shop, 'Bread', 'SOL', 'solana');
    expect([checkout.status, checkout.body.data?.crypto?.amount]).toEqual([201, '0.2']);
    const paidTo = checkout.body.data.crypto.address as string;
    await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: address(paidTo), amount: 200_000_000n })]);
    serveBlock();
    await paymentDetected(shop, checkout.body.data.id, 'SOL payment detected');
    owner = solanaSigner(phrase, paidTo);
  }, 60_000);
  afterAll(() => closeInTurn(app, node, ticker));

  /** The keypair of the wallet's Solana address `paidTo` (m/44'/501'/i'/0', i among the first 200). */
  function solanaSigner(phrase: string, paidTo: string) {
    const seed = Buffer.from(mnemonicToSeedSync(phrase)).toString('hex');
    for (let i = 0; i < 200; i++) {
      const keypair = web3.Keypair.fromSeed(derivePath(`m/44'/501'/${i}'/0'`, seed).key);
      if (keypair.publicKey.toBase58() === paidTo) return keypair;
    }
    throw new Error(`${paidTo} is not among the wallet's first 200 Solana addresses`);
  }

  /** A SOL transfer signed by the wallet's key, base64 wire format, on the node's latest blockhash (or `blockhash`). */
  function solTransfer(to: string, lamports: bigint, blockhash: string = ledger.svm.latestBlockhash()): string {
    const tx = new web3.Transaction().add(web3.SystemProgram.transfer({ fromPubkey: owner.publicKey, toPubkey: new web3.PublicKey(to), lamports }));
    tx.recentBlockhash = blockhash;
    tx.feePayer = owner.publicKey;
    tx.sign(owner);
    return tx.serialize().toString('base64');
  }

  /** The USDC (smallest units) in `owner`'s associated token account. */
  const usdcBalance = (ownerAddress: string) => {
    const account = ledger.svm.getAccount(address(associatedTokenAddress(web3, ownerAddress, USDC)));
    return account.exists ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
  };

  const balance = (of: string) => ledger.svm.getBalance(address(of) as Address) ?? 0n;
  const freshAddress = () => web3.Keypair.generate().publicKey.toBase58();

  it('relays a signed SOL send (base64 wire) through the node and confirms it from getTransaction; valued at the live SOL rate', async () => {
    const recipient = freshAddress();
    const signed = solTransfer(recipient, 50_000_000n);
    const created = await send(shop, { asset: 'SOL', network: 'solana', amount: '0.05', to_address: recipient, signed_transaction: signed });
    expect(created.status).toBe(201);
    // 0.05 SOL at 150.00 USD: 7.50 USD; the fee its one signature sets (5000 lamports) is under half a cent
    expect(created.body.data).toMatchObject({ status: 'pending', origin: 'signed', asset: 'SOL', network: 'solana', amount: '0.05', from_address: owner.publicKey.toBase58(), value_usd: 750, network_fee_usd: 0 });
    const signature = base58Encode(web3.Transaction.from(Buffer.from(signed, 'base64')).signature!);
    expect(created.body.data.tx_hash).toBe(signature);
    expect(balance(recipient)).toBe(50_000_000n);
    finalise();
    const confirmed = await eventually(() => shop.get(`/wallet/transactions/${created.body.data.id}`).then((r) => r.body.data), (t) => t.status !== 'pending', { what: 'SOL send confirmed' });
    // 5000 lamports of fee at 150.00 USD: under half a cent
    expect([confirmed.status, confirmed.value_usd, confirmed.network_fee_usd]).toEqual(['confirmed', 750, 0]);
  });

  it('a SOL send is confirmed only once its slot is 32 deep (as the watcher counts incoming transfers): pending at 31; a fork whose block at its slot lacks it leaves it pending, and it confirms once it lands again and is final', async () => {
    const worker = app.api.app.get(WalletSendsWorker);
    const view = (id: string) => shop.get(`/wallet/transactions/${id}`).then((r) => r.body.data);
    // the rounds below are the test's own: the background receipt poll (every 100 ms) is stopped, its
    // round in flight finished first, so none reads the block before the fork and the tip after it (CI, 2026-11-29)
    const loop = (worker as unknown as { poll: PollLoop }).poll;
    await loop.stop();
    let id = '';
    try {
      const recipient = freshAddress();
      const created = await send(shop, { asset: 'SOL', network: 'solana', amount: '0.01', to_address: recipient, signed_transaction: solTransfer(recipient, 10_000_000n) });
      expect([created.status, created.body.data?.status]).toEqual([201, 'pending']);
      id = created.body.data.id as string;
      const slot = node.tip; // the node's preflight served it in a block at once
      // 31 slots deep: a block 30 slots above its own; a round of the receipt poll leaves it pending
      ledger.svm.warpToSlot(BigInt(slot + REQUIRED - 2));
      serveBlock();
      expect(node.tip - slot + 1).toBe(REQUIRED - 1);
      await worker.pollLive();
      expect((await view(id)).status).toBe('pending');
      // a fork: the cluster's block at that slot does not hold it; the chain grows far past it: still pending
      const own = node.blocks.get(slot)!;
      node.blocks.set(slot, { ...own, transactions: [] });
      finalise();
      await worker.pollLive();
      expect((await view(id)).status).toBe('pending');
      // it lands again in a later block: pending until that one is 32 deep, then confirmed
      const { slot: later, block } = ledger.produceBlock();
      node.blocks.set(later, { ...block, transactions: own.transactions });
      node.tip = later;
      await worker.pollLive();
      expect((await view(id)).status).toBe('pending');
      finalise();
    } finally {
      loop.start(); // the background poll confirms it from here, as it would in service
    }
    const confirmed = await eventually(() => view(id), (t) => t.status !== 'pending', { what: 'SOL send confirmed once final' });
    expect([confirmed.status, confirmed.value_usd, confirmed.network_fee_usd]).toEqual(['confirmed', 150, 0]);
  });

  it('a SOL send the network dropped while its blockhash is valid is relayed again by the receipt poll and lands; one dropped until its blockhash expired fails, its hold given back (0040 addendum, 2026-11-28, later)', async () => {
    const worker = app.api.app.get(WalletSendsWorker);
    const view = (id: string) => shop.get(`/wallet/transactions/${id}`).then((r) => r.body.data);
    const available = () => shop.get(`/wallet/send-context?network=solana&asset=SOL&from=${owner.publicKey.toBase58()}`).then((r) => BigInt(Math.round(Number(r.body.data.available.fee_coin) * 1e9)));
    const relay = node.onSendTransaction!;
    // a node that answers with the signature and drops the transaction (never executed, never in a block)
    const dropping = (wire: Uint8Array) => base58Encode(wire.subarray(1, 65));
    node.blockhashValid = (blockhash) => blockhash === ledger.svm.latestBlockhash();
    try {
      const recipient = freshAddress();
      node.onSendTransaction = dropping;
      const created = await send(shop, { asset: 'SOL', network: 'solana', amount: '0.01', to_address: recipient, signed_transaction: solTransfer(recipient, 10_000_000n) });
      expect([created.status, created.body.data?.status]).toEqual([201, 'pending']);
      expect(balance(recipient)).toBe(0n);
      // the receipt poll (its rounds run every 100 ms here, and once more by hand): the node does not know it, its blockhash
      // is valid → its bytes are relayed again, and land
      node.onSendTransaction = relay;
      await worker.pollLive();
      await eventually(async () => balance(recipient), (lamports) => lamports === 10_000_000n, { what: 'the dropped send relayed again' });
      expect((await view(created.body.data.id)).status).toBe('pending');
      finalise();
      const confirmed = await eventually(() => view(created.body.data.id), (t) => t.status !== 'pending', { what: 'relayed-again SOL send confirmed' });
      expect(confirmed).toMatchObject({ status: 'confirmed', tx_hash: created.body.data.tx_hash });

      // dropped, and the node moves past the blockhash it was signed on (expired): it can never be processed → failed, hold back
      const before = await available();
      const other = freshAddress();
      node.onSendTransaction = dropping;
      const lost = await send(shop, { asset: 'SOL', network: 'solana', amount: '0.02', to_address: other, signed_transaction: solTransfer(other, 20_000_000n) });
      expect([lost.status, lost.body.data?.status]).toEqual([201, 'pending']);
      expect(before - (await available())).toBeGreaterThanOrEqual(20_000_000n);
      serveBlock();
      node.onSendTransaction = relay;
      await worker.pollLive();
      const failed = await eventually(() => view(lost.body.data.id), (t) => t.status !== 'pending', { what: 'the expired send failed' });
      expect(failed).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('blockhash') });
      expect(balance(other)).toBe(0n);
      expect(await available()).toBe(before);
    } finally {
      node.onSendTransaction = relay;
      node.blockhashValid = null;
    }
  });

  it('answers 409 transaction_rejected for a transaction the node refuses (a blockhash it does not know), and records nothing', async () => {
    const recipient = freshAddress();
    const before = (await shop.get('/wallet/transactions?limit=100')).body.data.length as number;
    const refused = await send(shop, { asset: 'SOL', network: 'solana', amount: '0.01', to_address: recipient, signed_transaction: solTransfer(recipient, 10_000_000n, base58Encode(randomBytes(32))) });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'transaction_rejected']);
    expect((await shop.get('/wallet/transactions?limit=100')).body.data).toHaveLength(before);
    expect(balance(recipient)).toBe(0n);
  });

  it('answers 503 network_unavailable while the node answers 503; the retry with the same key relays the same bytes and lands once', async () => {
    const recipient = freshAddress();
    const body = { asset: 'SOL', network: 'solana', amount: '0.02', to_address: recipient, signed_transaction: solTransfer(recipient, 20_000_000n) };
    const key = randomUUID();
    node.httpStatus = 503;
    try {
      const down = await send(shop, body, key);
      expect([down.status, down.body.error.code]).toEqual([503, 'network_unavailable']);
    } finally {
      node.httpStatus = null;
    }
    const retried = await send(shop, body, key);
    expect([retried.status, retried.body.data?.status]).toEqual([201, 'pending']);
    const again = await send(shop, body, key);
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.data.id]).toEqual([201, 'true', retried.body.data.id]);
    finalise();
    await eventually(() => shop.get(`/wallet/transactions/${retried.body.data.id}`).then((r) => r.body.data), (t) => t.status === 'confirmed', { what: 'retried SOL send confirmed' });
    expect(balance(recipient)).toBe(20_000_000n);
  });

  it('a USDC send from an address holding no SOL: transferChecked signed by it, the fee paid by the wallet’s SOL address; relayed, confirmed, valued at par', async () => {
    // a customer pays a USDC checkout: a second address of the wallet, holding USDC and no SOL
    const checkout = await openCheckout(shop, 'Cakes', 'USDC', 'solana');
    expect([checkout.status, checkout.body.data?.crypto?.amount]).toEqual([201, '30']);
    const paidTo = address(checkout.body.data.crypto.address as string);
    const program = address(TOKEN_PROGRAM);
    const [source] = await findAssociatedTokenPda({ owner: customer.address, mint: USDC, tokenProgram: program });
    const [destination] = await findAssociatedTokenPda({ owner: paidTo, mint: USDC, tokenProgram: program });
    await ledger.ok(customer, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: customer, ata: destination, owner: paidTo, mint: USDC }),
      getTransferCheckedInstruction({ source, mint: USDC, destination, authority: customer, amount: 30_000_000n, decimals: 6 }),
    ]);
    serveBlock();
    await paymentDetected(shop, checkout.body.data.id, 'USDC payment detected');
    const holder = solanaSigner(phrase, paidTo);
    expect(balance(paidTo)).toBe(0n); // no SOL to pay a fee with (the token account's rent is the customer's)

    const recipient = freshAddress();
    const key = (pubkey: string, isSigner: boolean, isWritable: boolean) => ({ pubkey: new web3.PublicKey(pubkey), isSigner, isWritable });
    const recipientAccount = associatedTokenAddress(web3, recipient, USDC);
    const createAccount = new web3.TransactionInstruction({
      programId: new web3.PublicKey(ASSOCIATED_TOKEN_PROGRAM),
      keys: [key(owner.publicKey.toBase58(), true, true), key(recipientAccount, false, true), key(recipient, false, false), key(USDC, false, false), key(SYSTEM_PROGRAM, false, false), key(TOKEN_PROGRAM, false, false)],
      data: Buffer.from([1]), // CreateIdempotent
    });
    const data = Buffer.alloc(10);
    data[0] = 12; // TransferChecked: amount u64, decimals u8
    data.writeBigUInt64LE(12_500_000n, 1);
    data[9] = 6;
    const transfer = new web3.TransactionInstruction({
      programId: new web3.PublicKey(TOKEN_PROGRAM),
      keys: [key(associatedTokenAddress(web3, paidTo, USDC), false, true), key(USDC, false, false), key(recipientAccount, false, true), key(holder.publicKey.toBase58(), true, false)],
      data,
    });
    const tx = new web3.Transaction().add(createAccount, transfer);
    tx.recentBlockhash = ledger.svm.latestBlockhash();
    tx.feePayer = owner.publicKey; // the SOL address pays the fee and the new account's rent
    tx.sign(owner, holder);
    const created = await send(shop, { asset: 'USDC', network: 'solana', amount: '12.5', to_address: recipient, signed_transaction: tx.serialize().toString('base64') });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ status: 'pending', asset: 'USDC', network: 'solana', amount: '12.5', from_address: paidTo, value_usd: 1250 });
    finalise();
    const confirmed = await eventually(() => shop.get(`/wallet/transactions/${created.body.data.id}`).then((r) => r.body.data), (t) => t.status !== 'pending', { what: 'USDC send confirmed' });
    expect(confirmed.status).toBe('confirmed');
    expect([usdcBalance(recipient), usdcBalance(paidTo)]).toEqual([12_500_000n, 17_500_000n]);
    expect(balance(paidTo)).toBe(0n); // the holder paid nothing
  });

  it('external records on Solana: matched against the transaction’s transfers — confirmed and valued when they match; failed on another amount, recipient, asset or sender', async () => {
    const { shop: outside } = await liveShop(app, 'Outside Solana');
    // an external wallet's Solana address: its own key, never a checkout's (decision 0024), the sender its records are matched against
    const own = web3.Keypair.generate();
    expect((await outside.post('/wallet', { type: 'external', solana_address: own.publicKey.toBase58() })).status).toBe(201);
    ledger.svm.airdrop(address(own.publicKey.toBase58()), 1_000_000_000n as never);
    /** The owner sends `lamports` to `to` from its own app: executed and served in a block; the signature. */
    const sentElsewhere = (to: string, lamports: bigint, from = own) => {
      const tx = new web3.Transaction().add(web3.SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: new web3.PublicKey(to), lamports }));
      tx.recentBlockhash = ledger.svm.latestBlockhash();
      tx.feePayer = from.publicKey;
      tx.sign(from);
      const executed = ledger.submit(tx.serialize());
      expect(executed.ok).toBe(true);
      serveBlock();
      return executed.signature;
    };
    const record = async (body: Record<string, unknown>) => {
      const created = await send(outside, { network: 'solana', ...body });
      expect([created.status, created.body.data?.status, created.body.data?.value_usd]).toEqual([201, 'pending', 0]);
      return eventually(() => outside.get(`/wallet/transactions/${created.body.data.id}`).then((r) => r.body.data), (t) => t.status !== 'pending', { what: 'external record matched' });
    };
    const recipient = freshAddress();
    const matching = sentElsewhere(recipient, 10_000_000n);
    finalise();
    expect(await record({ asset: 'SOL', amount: '0.01', to_address: recipient, tx_hash: matching })).toMatchObject({ status: 'confirmed', value_usd: 150, network_fee_usd: 0 });
    expect(await record({ asset: 'SOL', amount: '0.02', to_address: recipient, tx_hash: sentElsewhere(recipient, 10_000_000n) })).toMatchObject({ status: 'failed', failure_reason: 'The transaction pays another amount than the record.' });
    expect(await record({ asset: 'SOL', amount: '0.01', to_address: freshAddress(), tx_hash: sentElsewhere(recipient, 10_000_000n) })).toMatchObject({ status: 'failed', failure_reason: 'The transaction pays another address than to_address.' });
    expect(await record({ asset: 'USDC', amount: '0.01', to_address: recipient, tx_hash: sentElsewhere(recipient, 10_000_000n) })).toMatchObject({ status: 'failed', failure_reason: 'The transaction does not move USDC.' });
    expect(await record({ asset: 'SOL', amount: '0.01', to_address: recipient, tx_hash: sentElsewhere(recipient, 10_000_000n, owner) })).toMatchObject({ status: 'failed', failure_reason: 'The transaction was not sent from one of this wallet’s addresses.' });
  });
});
