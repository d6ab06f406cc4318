import {
  AccountRole,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Transaction,
  address,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  generateKeyPairSigner,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintDecoder,
  getMintEncoder,
  getMintToInstruction,
  getTokenDecoder,
} from '@solana-program/token';
import { AddressLookupTableAccount, AddressLookupTableProgram, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import {
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  base58Encode,
  type SolanaRpcBlock,
  type SolanaRpcTokenBalance,
  type SolanaRpcTransactionMeta,
  type SolanaRpcTransactionWithMeta,
} from '@lib/chains';

/** One transaction litesvm executed, written down as a node would answer it. */
export interface Executed {
  readonly signature: string;
  readonly ok: boolean;
  /** The transaction as signed and sent (what getBlock answers in `encoding: 'base64'`). */
  readonly wire: Uint8Array;
  readonly meta: SolanaRpcTransactionMeta;
  /** As getBlock / getTransaction answer it with `encoding: 'json'`. */
  readonly rpc: SolanaRpcTransactionWithMeta;
  /** litesvm's own record, for a failing test to print (logs). */
  readonly result: TransactionMetadata | FailedTransactionMetadata;
}

export interface ProducedBlock {
  readonly slot: number;
  readonly block: SolanaRpcBlock;
}

export const SOL = 1_000_000_000n;

/**
 * A Solana ledger for tests: litesvm (the real SVM runtime with the System, SPL Token,
 * Token-2022, associated-token and lookup-table programs) executes transactions that
 * @solana/kit builds and signs, and each executed transaction is written down as a node would
 * answer it — its wire bytes, and getBlock's `encoding: 'json'` form with its meta: err,
 * innerInstructions (litesvm's), pre/post token balances and balances (read from the accounts
 * before and after it), loadedAddresses (read from the lookup tables). Transactions are grouped
 * into blocks (`produceBlock`) with litesvm's blockhashes, slot after slot, so a JSON-RPC
 * stand-in can serve them.
 *
 * What this cannot give: a real node's RPC server, forks and skipped slots chosen by leaders
 * (a test skips slots by warping), vote transactions, the fee of a real cluster.
 */
export class LocalLedger {
  readonly svm = new LiteSVM();
  private pending: Executed[] = [];
  private previous: { slot: number; hash: string } | null = null;
  private produced = 0;

  /** A new wallet holding `sol` lamports (airdropped). */
  async wallet(sol: bigint = 10n * SOL): Promise<KeyPairSigner> {
    const signer = await generateKeyPairSigner();
    if (sol > 0n) {
      const result = this.svm.airdrop(signer.address, lamports(sol));
      if (!result || result instanceof FailedTransactionMetadata) throw new Error(`airdrop to ${signer.address} failed`);
    }
    return signer;
  }

  /** A fresh address with no account (a watched address before anyone paid it). */
  async address(): Promise<Address> {
    return (await generateKeyPairSigner()).address;
  }

  /**
   * Builds, signs and executes one transaction (version 0 unless `legacy`); lookup tables, when
   * given, compress the message (keys they hold are loaded from them). Signers are the fee payer
   * and those the instructions carry (kit).
   */
  async send(feePayer: KeyPairSigner, instructions: readonly Instruction[], options: { legacy?: boolean; lookupTables?: Record<Address, Address[]> } = {}): Promise<Executed> {
    return this.execute(await this.sign(feePayer, instructions, options));
  }

  /**
   * A transaction signed elsewhere (wire bytes, as sendTransaction receives them), executed as a
   * node's preflight would: one that fails (an unknown blockhash, too few lamports) is refused and
   * left out of the next block (its litesvm record returned to say why).
   */
  submit(wire: Uint8Array): Executed {
    const executed = this.execute(getTransactionDecoder().decode(wire));
    if (!executed.ok) this.pending.pop();
    return executed;
  }

  /** Executes a signed transaction and writes it down for the next block. */
  private execute(transaction: Transaction): Executed {
    const wire = new Uint8Array(getTransactionEncoder().encode(transaction));
    const compiled = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (compiled.version === 1) throw new Error('version-1 messages are not built here');
    const lookups = compiled.version === 0 ? (compiled.addressTableLookups ?? []) : [];
    const loaded = { writable: [] as string[], readonly: [] as string[] };
    for (const lookup of lookups) {
      const table = this.tableAddresses(lookup.lookupTableAddress);
      loaded.writable.push(...lookup.writableIndexes.map((i) => table[i]));
      loaded.readonly.push(...lookup.readonlyIndexes.map((i) => table[i]));
    }
    const keys = [...compiled.staticAccounts, ...loaded.writable, ...loaded.readonly];
    const preBalances = keys.map((key) => this.lamports(key));
    const preTokenBalances = this.tokenBalances(keys);

    const result = this.svm.sendTransaction(transaction);

    const failed = result instanceof FailedTransactionMetadata;
    const executed = failed ? result.meta() : result;
    const postBalances = keys.map((key) => this.lamports(key));
    const err = failed ? rpcError(result) : null;
    const meta: SolanaRpcTransactionMeta & Record<string, unknown> = {
      err,
      status: err === null ? { Ok: null } : { Err: err },
      fee: Number(preBalances.reduce((a, b) => a + b, 0n) - postBalances.reduce((a, b) => a + b, 0n)),
      preBalances: preBalances.map(Number),
      postBalances: postBalances.map(Number),
      innerInstructions: executed
        .innerInstructions()
        .map((group, index) => ({
          index,
          instructions: group.map((inner) => ({
            programIdIndex: inner.instruction().programIdIndex(),
            accounts: [...inner.instruction().accounts()],
            data: base58Encode(inner.instruction().data()),
            stackHeight: inner.stackHeight(),
          })),
        }))
        .filter((group) => group.instructions.length > 0),
      logMessages: executed.logs(),
      preTokenBalances,
      postTokenBalances: this.tokenBalances(keys),
      rewards: [],
      loadedAddresses: loaded,
      computeUnitsConsumed: Number(executed.computeUnitsConsumed()),
    };
    const rpc: SolanaRpcTransactionWithMeta = {
      transaction: {
        signatures: Object.values(transaction.signatures).map((signature) => base58Encode(signature as Uint8Array)),
        message: {
          accountKeys: [...compiled.staticAccounts],
          header: {
            numRequiredSignatures: compiled.header.numSignerAccounts,
            numReadonlySignedAccounts: compiled.header.numReadonlySignerAccounts,
            numReadonlyUnsignedAccounts: compiled.header.numReadonlyNonSignerAccounts,
          },
          recentBlockhash: compiled.lifetimeToken,
          instructions: compiled.instructions.map((ix) => ({
            programIdIndex: ix.programAddressIndex,
            accounts: [...(ix.accountIndices ?? [])],
            data: base58Encode(new Uint8Array(ix.data ?? [])),
            stackHeight: null,
          })),
          ...(compiled.version === 0
            ? { addressTableLookups: lookups.map((l) => ({ accountKey: l.lookupTableAddress, writableIndexes: [...l.writableIndexes], readonlyIndexes: [...l.readonlyIndexes] })) }
            : {}),
        },
      },
      meta,
      version: compiled.version === 0 ? 0 : 'legacy',
    };
    const signature = base58Encode(executed.signature());
    if (signature !== rpc.transaction.signatures[0]) throw new Error('litesvm reports another signature than the transaction carries');
    const record: Executed = { signature, ok: !failed, wire, meta, rpc, result };
    this.pending.push(record);
    return record;
  }

  private async sign(feePayer: KeyPairSigner, instructions: readonly Instruction[], options: { legacy?: boolean; lookupTables?: Record<Address, Address[]> }): Promise<Transaction> {
    if (options.legacy) {
      const legacy = pipe(
        createTransactionMessage({ version: 'legacy' }),
        (m) => setTransactionMessageFeePayerSigner(feePayer, m),
        (m) => this.svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
        (m) => appendTransactionMessageInstructions(instructions, m),
      );
      return signTransactionMessageWithSigners(legacy);
    }
    const v0 = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) => this.svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    return signTransactionMessageWithSigners(options.lookupTables ? compressTransactionMessageUsingAddressLookupTables(v0, options.lookupTables) : v0);
  }

  /** Like send, and the transaction must succeed (its logs otherwise). */
  async ok(feePayer: KeyPairSigner, instructions: readonly Instruction[], options?: { legacy?: boolean; lookupTables?: Record<Address, Address[]> }): Promise<Executed> {
    const executed = await this.send(feePayer, instructions, options);
    if (!executed.ok) throw new Error(`transaction failed: ${String(executed.result)}`);
    return executed;
  }

  /** A new mint of `decimals` under `program` (SPL Token or Token-2022), `authority` minting. */
  async createMint(authority: KeyPairSigner, decimals: number, program: string = TOKEN_PROGRAM): Promise<Address> {
    const mint = await generateKeyPairSigner();
    const space = 82n;
    await this.ok(authority, [
      getCreateAccountInstruction({ payer: authority, newAccount: mint, lamports: this.svm.minimumBalanceForRentExemption(space), space, programAddress: address(program) }),
      getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: authority.address }, { programAddress: address(program) }),
    ]);
    return mint.address;
  }

  /**
   * A mint at a given address (a real token's, such as mainnet USDC's, so the registry's mint is
   * the one on this ledger), `authority` minting: its account written straight into litesvm.
   */
  mintAt(mint: Address, authority: Address, decimals: number, program: string = TOKEN_PROGRAM): Address {
    const data = new Uint8Array(getMintEncoder().encode({ mintAuthority: authority, supply: 0n, decimals, isInitialized: true, freezeAuthority: null }));
    this.svm.setAccount({ address: mint, data, executable: false, lamports: lamports(this.svm.minimumBalanceForRentExemption(BigInt(data.length))), programAddress: address(program), space: BigInt(data.length) });
    return mint;
  }

  /** The associated token account of `owner` for `mint`, created (idempotently) by `payer`. */
  async tokenAccount(payer: KeyPairSigner, owner: Address, mint: Address, program: string = TOKEN_PROGRAM): Promise<Address> {
    const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: address(program) });
    await this.ok(payer, [getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner, mint, tokenProgram: address(program) })]);
    return ata;
  }

  /** Mints `amount` to `owner`'s associated token account (created if needed). */
  async mintTo(authority: KeyPairSigner, mint: Address, owner: Address, amount: bigint, program: string = TOKEN_PROGRAM): Promise<Address> {
    const ata = await this.tokenAccount(authority, owner, mint, program);
    await this.ok(authority, [getMintToInstruction({ mint, token: ata, mintAuthority: authority, amount }, { programAddress: address(program) })]);
    return ata;
  }

  /** A lookup table holding `addresses`, usable from the next slot (the table program's rule). */
  async lookupTable(authority: KeyPairSigner, addresses: readonly Address[]): Promise<Address> {
    const recentSlot = this.svm.getClock().slot;
    const owner = new PublicKey(authority.address);
    const [create, table] = AddressLookupTableProgram.createLookupTable({ authority: owner, payer: owner, recentSlot });
    const extend = AddressLookupTableProgram.extendLookupTable({ lookupTable: table, authority: owner, payer: owner, addresses: addresses.map((a) => new PublicKey(a)) });
    await this.ok(authority, [kitInstruction(create, authority), kitInstruction(extend, authority)]);
    this.svm.warpToSlot(recentSlot + 1n);
    return address(table.toBase58());
  }

  /**
   * The transactions sent since the last block, as a block at the current slot (getBlock's
   * answer, `encoding: 'json'`, `transactionDetails: 'full'`); then a new blockhash and the
   * next slot, `skip` slots later (slots skipped by their leaders).
   */
  produceBlock(skip = 0): ProducedBlock {
    // a block is stamped with the wall clock, as a cluster stamps blockTime (litesvm's clock starts at 0):
    // a live quote judges a transfer's lateness by it (decision 0025, addendum of 2026-11-29)
    const clock = this.svm.getClock();
    clock.unixTimestamp = BigInt(Math.floor(Date.now() / 1000));
    this.svm.setClock(clock);
    const slot = Number(this.svm.getClock().slot);
    const hash = this.svm.latestBlockhash();
    const parent = this.previous ?? { slot: slot - 1, hash: base58Encode(new Uint8Array(32)) };
    const block: SolanaRpcBlock & Record<string, unknown> = {
      blockhash: hash,
      previousBlockhash: parent.hash,
      parentSlot: parent.slot,
      blockHeight: this.produced++,
      blockTime: Number(this.svm.getClock().unixTimestamp),
      rewards: [],
      transactions: this.pending.map((executed) => executed.rpc),
    };
    this.pending = [];
    this.previous = { slot, hash };
    this.svm.expireBlockhash();
    this.svm.warpToSlot(BigInt(slot + 1 + skip));
    return { slot, block };
  }

  private lamports(key: string): bigint {
    return this.svm.getBalance(address(key)) ?? 0n;
  }

  private tableAddresses(table: Address): string[] {
    const account = this.svm.getAccount(table);
    if (!account.exists) throw new Error(`no lookup table ${table}`);
    return AddressLookupTableAccount.deserialize(new Uint8Array(account.data)).addresses.map((a) => a.toBase58());
  }

  /** Token balances of the token accounts among `keys`, as the node writes them. */
  private tokenBalances(keys: readonly string[]): SolanaRpcTokenBalance[] {
    const balances: SolanaRpcTokenBalance[] = [];
    keys.forEach((key, accountIndex) => {
      const account = this.svm.getAccount(address(key));
      if (!account.exists || (account.programAddress !== TOKEN_PROGRAM && account.programAddress !== TOKEN_2022_PROGRAM)) return;
      const data = new Uint8Array(account.data);
      // a token account: 165 bytes, or more with Token-2022 extensions (account type 2 at byte 165)
      if (data.length < 165 || (data.length > 165 && data[165] !== 2)) return;
      const token = getTokenDecoder().decode(data.subarray(0, 165));
      if (token.state === 0) return;
      const mint = this.svm.getAccount(token.mint);
      if (!mint.exists) return;
      const decimals = getMintDecoder().decode(new Uint8Array(mint.data).subarray(0, 82)).decimals;
      const amount = token.amount.toString();
      const uiAmountString = decimalString(token.amount, decimals);
      balances.push({
        accountIndex,
        mint: token.mint,
        owner: token.owner,
        programId: account.programAddress,
        uiTokenAmount: { amount, decimals, uiAmount: Number(uiAmountString), uiAmountString } as SolanaRpcTokenBalance['uiTokenAmount'],
      });
    });
    return balances;
  }
}

/** A web3.js instruction as a kit one, `signer` signing where it signs. */
function kitInstruction(ix: TransactionInstruction, signer: KeyPairSigner): Instruction {
  return {
    programAddress: address(ix.programId.toBase58()),
    accounts: ix.keys.map((key) => {
      const role = key.isSigner ? (key.isWritable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER) : key.isWritable ? AccountRole.WRITABLE : AccountRole.READONLY;
      const keyAddress = address(key.pubkey.toBase58());
      return key.isSigner && keyAddress === signer.address ? { address: keyAddress, role, signer } : { address: keyAddress, role };
    }),
    data: new Uint8Array(ix.data),
  } as Instruction;
}

/** The RPC's form of a transaction error: {"InstructionError":[index,{"Custom":code}]}, or the error's name. */
function rpcError(failed: FailedTransactionMetadata): unknown {
  const err = failed.err() as unknown as { index?: number; err?: () => { code?: number; toString(): string }; toString(): string };
  if (typeof err === 'object' && typeof err.index === 'number' && typeof err.err === 'function') {
    const inner = err.err();
    return { InstructionError: [err.index, typeof inner === 'object' && typeof inner.code === 'number' ? { Custom: inner.code } : String(inner)] };
  }
  return String(err);
}

function decimalString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const text = amount.toString().padStart(decimals + 1, '0');
  const fraction = text.slice(-decimals).replace(/0+$/, '');
  return fraction ? `${text.slice(0, -decimals)}.${fraction}` : text.slice(0, -decimals);
}
