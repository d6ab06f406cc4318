import { AccountRole, type AccountSignerMeta, type Address, type Instruction, type KeyPairSigner, address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getCreateAssociatedTokenInstruction,
  getRecoverNestedAssociatedTokenInstruction,
  getTransferCheckedInstruction,
  getTransferInstruction,
} from '@solana-program/token';
import {
  type BlockRef,
  type ObservedTransfer,
  SolanaTransfers,
  type SolanaWeb3,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  SYSTEM_PROGRAM,
  associatedTokenAddress,
  loadSolanaWeb3,
} from '@lib/chains';
import { type Executed, LocalLedger, SOL } from './local-ledger';
import { TestWatched } from './watched';

/**
 * The matcher on transactions litesvm really executed (the SVM runtime with the System, SPL
 * Token, Token-2022 and associated-token programs): each transaction is decoded twice — from
 * its wire bytes with its meta, and from getBlock's `encoding: 'json'` form — and both must
 * find exactly the same transfers, with exact bigint amounts.
 */
const BLOCK: BlockRef = { height: 440_208_000, hash: '11111111111111111111111111111111' };
const USDC_UNITS = 1_000_000n;

let web3: SolanaWeb3;
let ledger: LocalLedger;
let transfers: SolanaTransfers;
let customer: KeyPairSigner;
let issuer: KeyPairSigner;
let usdc: Address;
let usdt: Address;
let usdc2022: Address;
let other6: Address;

beforeAll(async () => {
  web3 = await loadSolanaWeb3();
  ledger = new LocalLedger();
  customer = await ledger.wallet(100n * SOL);
  issuer = await ledger.wallet(10n * SOL);
  usdc = await ledger.createMint(issuer, 6);
  usdt = await ledger.createMint(issuer, 6);
  usdc2022 = await ledger.createMint(issuer, 6, TOKEN_2022_PROGRAM);
  other6 = await ledger.createMint(issuer, 6);
  await ledger.mintTo(issuer, usdc, customer.address, 1_000n * USDC_UNITS);
  await ledger.mintTo(issuer, usdt, customer.address, 1_000n * USDC_UNITS);
  await ledger.mintTo(issuer, usdc2022, customer.address, 1_000n * USDC_UNITS, TOKEN_2022_PROGRAM);
  await ledger.mintTo(issuer, other6, customer.address, 1_000n * USDC_UNITS);
  transfers = new SolanaTransfers(web3, { mints: { USDC: usdc, USDT: usdt } });
});

/** The watched transfers of executed transactions, both decodings agreeing. */
async function found(executed: readonly Executed[], watched: TestWatched, matcher: SolanaTransfers = transfers): Promise<ObservedTransfer[]> {
  const fromWire = executed.flatMap((e) => {
    const tx = matcher.decodeWire(e.wire, e.meta);
    return tx ? matcher.candidates(tx) : [];
  });
  const fromJson = executed.flatMap((e) => {
    const tx = matcher.decodeRpc(e.rpc);
    return tx ? matcher.candidates(tx) : [];
  });
  expect(fromJson).toEqual(fromWire);
  return matcher.match(fromWire, BLOCK, watched);
}

const transfer = (tx: Executed, fields: Partial<ObservedTransfer>): ObservedTransfer => ({
  network: 'solana',
  txHash: tx.signature,
  index: 999,
  asset: 'USDC',
  amount: 0n,
  to: '',
  from: customer.address,
  block: BLOCK,
  reference: null,
  ...fields,
});

const withReference = (ix: Instruction, ...references: Address[]): Instruction => ({
  ...ix,
  accounts: [...(ix.accounts ?? []), ...references.map((reference) => ({ address: reference, role: AccountRole.READONLY }))],
});

/** The customer's wallet paying `amount` of `mint` to `owner`: the recipient's associated account created if missing, then transferChecked (what wallets send). */
async function payToken(owner: Address, mint: Address, amount: bigint, options: { program?: string; references?: Address[]; decimals?: number } = {}): Promise<Executed> {
  const program = address(options.program ?? TOKEN_PROGRAM);
  const [source] = await findAssociatedTokenPda({ owner: customer.address, mint, tokenProgram: program });
  const [destination] = await findAssociatedTokenPda({ owner, mint, tokenProgram: program });
  const pay = getTransferCheckedInstruction({ source, mint, destination, authority: customer, amount, decimals: options.decimals ?? 6 }, { programAddress: program });
  return ledger.send(customer, [
    getCreateAssociatedTokenIdempotentInstruction({ payer: customer, ata: destination, owner, mint, tokenProgram: program }),
    withReference(pay, ...(options.references ?? [])),
  ]);
}

describe('SOL transfers', () => {
  it('a System transfer to a watched address is found with its exact lamports, top-level index 999 and sender', async () => {
    const shop = await ledger.address();
    const tx = await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: shop, amount: 1_234_567_891n })]);
    expect(ledger.svm.getBalance(shop)).toBe(1_234_567_891n);
    expect(await found([tx], new TestWatched([shop]))).toEqual([transfer(tx, { asset: 'SOL', amount: 1_234_567_891n, to: shop })]);
  });

  it('legacy and version-0 transactions alike, and a recipient loaded from an address lookup table', async () => {
    const shop = await ledger.address();
    const legacy = await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: shop, amount: 2n * SOL })], { legacy: true });
    expect(legacy.rpc.version).toBe('legacy');

    const table = await ledger.lookupTable(customer, [shop]);
    const viaTable = await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: shop, amount: 3n * SOL + 7n })], { lookupTables: { [table]: [shop] } });
    expect(viaTable.rpc.transaction.message.accountKeys).not.toContain(shop);
    expect(viaTable.meta.loadedAddresses?.writable).toEqual([shop]);

    expect(await found([legacy, viaTable], new TestWatched([shop]))).toEqual([
      transfer(legacy, { asset: 'SOL', amount: 2n * SOL, to: shop }),
      transfer(viaTable, { asset: 'SOL', amount: 3n * SOL + 7n, to: shop }),
    ]);
  });

  it('a transfer to an address nobody watches, a zero amount and a wallet paying itself are not reported', async () => {
    const shop = await ledger.address();
    const elsewhere = await ledger.address();
    const txs = [
      await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: elsewhere, amount: SOL })]),
      await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: shop, amount: 0n })]),
    ];
    const watched = new TestWatched([shop, customer.address]);
    txs.push(await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: customer.address, amount: SOL })]));
    expect(await found(txs, watched)).toEqual([]);
    expect(watched.asked).toEqual([[elsewhere]]);
  });

  it('a System transfer a program makes through CPI is found at outer × 1000 + its inner position', async () => {
    // the associated-token program tops a pre-funded account up to rent exemption with an inner
    // System transfer before allocating it: real CPI, recipient the (watched) account
    const owner = await ledger.address();
    const [account] = await findAssociatedTokenPda({ owner, mint: usdc, tokenProgram: address(TOKEN_PROGRAM) });
    await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: account, amount: ledger.svm.minimumBalanceForRentExemption(0n) })]);
    const before = ledger.svm.getBalance(account) ?? 0n;
    const tx = await ledger.ok(customer, [getCreateAssociatedTokenInstruction({ payer: customer, ata: account, owner, mint: usdc })]);
    const topUp = (ledger.svm.getBalance(account) ?? 0n) - before;
    expect(topUp).toBeGreaterThan(0n);
    // inner instructions of outer 0: the token program sizing the account, then the System transfer
    const inner = tx.meta.innerInstructions?.[0].instructions ?? [];
    const keys = tx.rpc.transaction.message.accountKeys;
    expect(inner.slice(0, 2).map((ix) => [keys[ix.programIdIndex], ix.stackHeight])).toEqual([
      [TOKEN_PROGRAM, 2],
      [SYSTEM_PROGRAM, 2],
    ]);
    expect(await found([tx], new TestWatched([account]))).toEqual([transfer(tx, { asset: 'SOL', amount: topUp, to: account, index: 1 })]);
  });
});

describe('SPL token transfers', () => {
  it('transferChecked to the reserved address’s associated token account, created in the same transaction', async () => {
    const shop = await ledger.address();
    const tx = await payToken(shop, usdc, 12_345_678n);
    expect(tx.ok).toBe(true);
    const ata = associatedTokenAddress(web3, shop, usdc);
    expect(tx.meta.preTokenBalances?.some((b) => tx.rpc.transaction.message.accountKeys[b.accountIndex] === ata)).toBe(false);
    expect(await found([tx], new TestWatched([shop]))).toEqual([transfer(tx, { amount: 12_345_678n, to: shop, index: 1999 })]);
    const [candidate] = transfers.candidates(transfers.decodeWire(tx.wire, tx.meta)!);
    expect(candidate.account).toBe(ata);
  });

  it('a plain Transfer (no mint in the instruction): mint and owner come from postTokenBalances', async () => {
    const shop = await ledger.address();
    const destination = await ledger.tokenAccount(customer, shop, usdt);
    const [source] = await findAssociatedTokenPda({ owner: customer.address, mint: usdt, tokenProgram: address(TOKEN_PROGRAM) });
    const tx = await ledger.ok(customer, [getTransferInstruction({ source, destination, authority: customer, amount: 250_000_001n })]);
    expect(await found([tx], new TestWatched([shop]))).toEqual([transfer(tx, { asset: 'USDT', amount: 250_000_001n, to: shop })]);
  });

  it('Token-2022 transferChecked of a mint configured as USDC', async () => {
    const shop = await ledger.address();
    const tx = await payToken(shop, usdc2022, 42_000_000n, { program: TOKEN_2022_PROGRAM });
    expect(tx.ok).toBe(true);
    const matcher = new SolanaTransfers(web3, { mints: { USDC: usdc2022 } });
    expect(await found([tx], new TestWatched([shop]), matcher)).toEqual([transfer(tx, { amount: 42_000_000n, to: shop, index: 1999 })]);
    // the same transfer is no USDC for a matcher that knows the SPL Token mint only
    expect(await found([tx], new TestWatched([shop]))).toEqual([]);
  });

  it('a mint that is neither USDC nor USDT, a mint whose decimals are not the asset’s, and an unwatched owner are not reported', async () => {
    const shop = await ledger.address();
    const elsewhere = await ledger.address();
    const txs = [await payToken(shop, other6, 5_000_000n), await payToken(elsewhere, usdc, 5_000_000n)];
    expect(txs.every((t) => t.ok)).toBe(true);
    expect(await found(txs, new TestWatched([shop]))).toEqual([]);

    const nine = await ledger.createMint(issuer, 9);
    await ledger.mintTo(issuer, nine, customer.address, 10n * SOL);
    const nineTx = await payToken(shop, nine, SOL, { decimals: 9 });
    expect(nineTx.ok).toBe(true);
    expect(await found([nineTx], new TestWatched([shop]), new SolanaTransfers(web3, { mints: { USDC: nine } }))).toEqual([]);
  });

  it('a transferChecked a program makes through CPI (recovering a nested associated account) is found as an inner instruction', async () => {
    // tokens sent by mistake to the associated account OF the shop's associated account; the shop
    // recovers them: the associated-token program transfers them back through CPI (transferChecked)
    const shop = await ledger.wallet(SOL);
    const shopAta = await ledger.tokenAccount(customer, shop.address, usdc);
    const nested = await ledger.tokenAccount(customer, shopAta, usdc);
    const mistake = await ledger.ok(customer, [
      getTransferCheckedInstruction({
        source: (await findAssociatedTokenPda({ owner: customer.address, mint: usdc, tokenProgram: address(TOKEN_PROGRAM) }))[0],
        mint: usdc,
        destination: nested,
        authority: customer,
        amount: 7_500_000n,
        decimals: 6,
      }),
    ]);
    const recover = await ledger.ok(customer, [
      getRecoverNestedAssociatedTokenInstruction({
        nestedAssociatedAccountAddress: nested,
        nestedTokenMintAddress: usdc,
        destinationAssociatedAccountAddress: shopAta,
        ownerAssociatedAccountAddress: shopAta,
        ownerTokenMintAddress: usdc,
        walletAddress: shop,
      }),
    ]);
    expect(recover.meta.postTokenBalances?.some((b) => recover.rpc.transaction.message.accountKeys[b.accountIndex] === nested)).toBe(false); // closed
    // the mistaken transfer went to an account the shop's ATA owns, not the shop: not reported;
    // the recovery is, inner instruction 0 of outer 0, sent by the nested account's owner
    expect(await found([mistake, recover], new TestWatched([shop.address]))).toEqual([
      transfer(recover, { amount: 7_500_000n, to: shop.address, from: shopAta, index: 0 }),
    ]);
  });
});

describe('Solana Pay references', () => {
  it('a read-only non-signer key on the transfer instruction that is a watched reference is reported as `reference`', async () => {
    const shop = await ledger.address();
    const reference = await ledger.address();
    const stranger = await ledger.address();
    const sol = await ledger.ok(customer, [withReference(getTransferSolInstruction({ source: customer, destination: shop, amount: SOL }), stranger, reference)]);
    const token = await payToken(shop, usdc, 1_500_000n, { references: [reference] });
    const plain = await payToken(shop, usdc, 2_500_000n, { references: [stranger] });
    const watched = new TestWatched([shop], new Map([[reference, shop]]));
    expect(await found([sol, token, plain], watched)).toEqual([
      transfer(sol, { asset: 'SOL', amount: SOL, to: shop, reference }),
      transfer(token, { amount: 1_500_000n, to: shop, index: 1999, reference }),
      transfer(plain, { amount: 2_500_000n, to: shop, index: 1999, reference: null }),
    ]);
    // references are asked about once per batch, only for transfers that matched
    expect(watched.askedReferences).toEqual([[stranger, reference]]);
  });

  it('a watched reference on a transfer to an address nobody watches is not a payment (anyone can copy a reference)', async () => {
    const shop = await ledger.address();
    const thief = await ledger.address();
    const reference = await ledger.address();
    const txs = [
      await ledger.ok(customer, [withReference(getTransferSolInstruction({ source: customer, destination: thief, amount: SOL }), reference)]),
      await payToken(thief, usdc, 1_000_000n, { references: [reference] }),
    ];
    const watched = new TestWatched([shop], new Map([[reference, shop]]));
    expect(await found(txs, watched)).toEqual([]);
    expect(watched.askedReferences).toEqual([]);
  });

  it('a writable or signing extra key is no reference', async () => {
    const shop = await ledger.address();
    const writable = await ledger.address();
    const cosigner = await ledger.wallet(0n);
    const ix = getTransferSolInstruction({ source: customer, destination: shop, amount: SOL });
    const cosigning: AccountSignerMeta = { address: cosigner.address, role: AccountRole.READONLY_SIGNER, signer: cosigner };
    const tx = await ledger.ok(customer, [{ ...ix, accounts: [...ix.accounts, { address: writable, role: AccountRole.WRITABLE }, cosigning] }]);
    expect(tx.rpc.transaction.signatures).toHaveLength(2);
    const watched = new TestWatched([shop], new Map([[writable, shop], [cosigner.address, shop]]));
    expect(await found([tx], watched)).toEqual([transfer(tx, { asset: 'SOL', amount: SOL, to: shop, reference: null })]);
  });
});

describe('failed transactions', () => {
  it('move nothing and are ignored, though they name a watched address', async () => {
    const shop = await ledger.address();
    const [source] = await findAssociatedTokenPda({ owner: customer.address, mint: usdc, tokenProgram: address(TOKEN_PROGRAM) });
    const destination = await ledger.tokenAccount(customer, shop, usdc);
    const txs = [
      // more SOL than the customer has
      await ledger.send(customer, [getTransferSolInstruction({ source: customer, destination: shop, amount: 1_000_000n * SOL })]),
      // more tokens than the customer's account holds
      await ledger.send(customer, [getTransferCheckedInstruction({ source, mint: usdc, destination, authority: customer, amount: 1_000_000n * USDC_UNITS, decimals: 6 })]),
    ];
    for (const tx of txs) {
      expect(tx.ok).toBe(false);
      expect(tx.meta.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
      expect(transfers.decodeWire(tx.wire, tx.meta)).toBeNull();
      expect(transfers.decodeRpc(tx.rpc)).toBeNull();
    }
    expect(ledger.svm.getBalance(shop)).toBeNull();
    expect(await found(txs, new TestWatched([shop]))).toEqual([]);
  });
});

describe('a block', () => {
  it('scanBlock reports the watched transfers in chain order and asks the address book once per block', async () => {
    const shop = await ledger.address();
    const other = await ledger.address();
    ledger.produceBlock(); // close what earlier tests sent
    const first = await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: shop, amount: SOL / 2n + 5n })]);
    await ledger.ok(customer, [getTransferSolInstruction({ source: customer, destination: other, amount: SOL })]);
    const failed = await ledger.send(customer, [getTransferSolInstruction({ source: customer, destination: shop, amount: 1_000_000n * SOL })]);
    const second = await payToken(shop, usdc, 999_999n);
    const { slot, block } = ledger.produceBlock();
    expect(block.transactions).toHaveLength(4);
    expect(failed.ok).toBe(false);

    const watched = new TestWatched([shop]);
    const scanned = await transfers.scanBlock(slot, block, watched);
    const ref = { height: slot, hash: block.blockhash, time: block.blockTime }; // getBlock's blockTime: lateness is judged by it (0025 addendum, 2026-11-29)
    expect(scanned).toEqual({
      ...ref,
      parentHash: block.previousBlockhash,
      transfers: [
        { ...transfer(first, { asset: 'SOL', amount: SOL / 2n + 5n, to: shop }), block: ref },
        { ...transfer(second, { amount: 999_999n, to: shop, index: 1999 }), block: ref },
      ],
    });
    expect(watched.asked).toEqual([[shop, other]]);
  });

  it('a transaction without meta cannot be judged: an error, not a silent skip', () => {
    const tx = { transaction: { signatures: ['x'], message: { accountKeys: [], header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 0 }, recentBlockhash: 'x', instructions: [] } }, meta: null };
    expect(() => transfers.decodeRpc(tx)).toThrow(/no status/);
  });

  it('mints given are checked: an SPL asset of the network, a Solana address, one mint per asset', () => {
    expect(() => new SolanaTransfers(web3, { mints: { SOL: usdc } })).toThrow(/not an SPL token/);
    expect(() => new SolanaTransfers(web3, { mints: { BTC: usdc } })).toThrow(/not an SPL token/);
    expect(() => new SolanaTransfers(web3, { mints: { USDC: '0xdeadbeef' } })).toThrow(/not a Solana address/);
    expect(() => new SolanaTransfers(web3, { mints: { USDC: usdc, USDT: usdc } })).toThrow(/cannot share/);
    expect(() => new SolanaTransfers(web3, { network: 'ethereum' })).toThrow(/not a Solana network/);
  });
});

describe('associatedTokenAddress', () => {
  it('is the associated-token program’s address for the owner and mint (a devnet account; kit’s derivation; Token-2022)', async () => {
    expect(associatedTokenAddress(web3, 'Hzn3n914JaSpnxo5mBbmuCDmGL6mxWN9Ac2HzEXFSGtb', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')).toBe('DvSgNMRxVSMBpLp4hZeBrmQo8ZRFne72actTZ3PYE3AA');
    const owner = await ledger.address();
    for (const program of [TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
      const [expected] = await findAssociatedTokenPda({ owner, mint: usdc, tokenProgram: address(program) });
      expect(associatedTokenAddress(web3, owner, usdc, program)).toBe(expected);
    }
  });
});
