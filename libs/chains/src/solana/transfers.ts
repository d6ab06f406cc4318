import type { TransactionInstruction, VersionedMessage } from '@solana/web3.js';
import { base58Decode, base58Encode, defaultRegistry } from '../registry';
import type { ChainRegistry } from '../registry/registry';
import type { AssetCode, NetworkId } from '../registry/types';
import type { BlockRef, ObservedTransfer, ScannedBlock, WatchedAddresses } from '../watch/types';
import { SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type SolanaWeb3 } from './programs';
import type { SolanaRpcBlock, SolanaRpcCompiledInstruction, SolanaRpcTokenBalance, SolanaRpcTransactionMeta, SolanaRpcTransactionWithMeta } from './rpc-types';

export interface SolanaTransfersOptions {
  /** The registry's Solana network (default 'solana'). */
  readonly network?: NetworkId;
  /** Where decimals, the native asset and the mints come from (default: defaultRegistry). */
  readonly registry?: ChainRegistry;
  /**
   * SPL mints per asset instead of the registry's (a local validator or devnet mints its own
   * USDC): `{ USDC: '<mint>' }`. Assets left out keep the registry's mint.
   */
  readonly mints?: Partial<Record<AssetCode, string>>;
}

/** An instruction of a transaction, its program and accounts as indexes into `keys`. */
interface Instruction {
  readonly programIdIndex: number;
  readonly accounts: readonly number[];
  readonly data: Uint8Array;
}

/** A successful transaction, decoded: what the matcher reads. */
export interface SolanaTransaction {
  /** Its first signature, base58: the transaction's id. */
  readonly signature: string;
  /** Every account key: the message's own, then those loaded from lookup tables (writable, then read-only). */
  readonly keys: readonly string[];
  /** The message (web3.js), for which keys sign and which are writable. */
  readonly message: VersionedMessage;
  readonly instructions: readonly Instruction[];
  readonly meta: SolanaRpcTransactionMeta;
}

/** A transfer of a coin the service accepts, before the watched addresses are asked. */
export interface SolanaTransferCandidate {
  readonly txHash: string;
  /** outer × 1000 + inner, or outer × 1000 + 999 for a top-level instruction (ObservedTransfer.index). */
  readonly index: number;
  readonly asset: AssetCode;
  readonly amount: bigint;
  /** The wallet that received: the destination (SOL), the destination token account's owner (tokens). */
  readonly to: string;
  /** The account credited: `to` for SOL, the token account for tokens. */
  readonly account: string;
  /** The sender: the source (SOL), the source token account's owner, else the signing authority (tokens). */
  readonly from: string | null;
  /** Read-only non-signer keys the instruction carries beyond its own accounts (Solana Pay references). */
  readonly references: readonly string[];
}

/** Top-level instructions get inner index 999 (ObservedTransfer.index). */
const TOP_LEVEL = 999;

/** System Program instruction tags (u32 little-endian) that move SOL: Transfer, TransferWithSeed. */
const SYSTEM_TRANSFER = 2;
const SYSTEM_TRANSFER_WITH_SEED = 11;

/** SPL Token instruction tags (the first data byte) that move tokens between accounts. */
const TOKEN_TRANSFER = 3;
const TOKEN_TRANSFER_CHECKED = 12;

/**
 * Finds, in Solana transactions, the transfers of SOL and of the registry's SPL tokens (USDC,
 * USDT), and keeps those whose recipient is a watched address (decision 0022):
 *
 * - SOL: System Program `Transfer` and `TransferWithSeed` (decoded by web3.js's
 *   SystemInstruction); the recipient is the destination account.
 * - Tokens: SPL Token and Token-2022 `TransferChecked` (mint in the instruction) and `Transfer`;
 *   the recipient is the OWNER of the destination token account, read from the transaction's
 *   postTokenBalances (preTokenBalances when the account was closed in the same transaction),
 *   the entry whose accountIndex is the destination's; the mint must be one of the watched
 *   mints and its decimals the asset's. An associated token account of a watched address is
 *   owned by it, so it is found this way, and so is any other token account the address owns.
 * - Both at top level and inside inner instructions (a transfer a program makes through CPI).
 * - Failed transactions (meta.err) move nothing and are skipped; so are zero amounts
 *   (address-poisoning spam) and a wallet sending to itself.
 * - Solana Pay references: read-only non-signer keys the transfer instruction carries after
 *   its own accounts; one of them that WatchedAddresses.watchedReferences knows is reported as
 *   `reference`. A reference never makes a match on its own: the recipient must be watched
 *   (anyone can copy a reference into a transfer to themselves).
 *
 * web3.js does the decoding it offers (VersionedTransaction / Message / MessageV0, the System
 * Program's instructions); web3.js 1.x has no SPL Token decoder, so the two token layouts
 * (tag 3 + u64 amount; tag 12 + u64 amount + u8 decimals) are read here.
 */
export class SolanaTransfers {
  readonly network: NetworkId;
  private readonly mints: ReadonlyMap<string, AssetCode>;
  private readonly nativeAsset: AssetCode | null;
  private readonly decimals: (asset: AssetCode) => number;

  constructor(
    private readonly web3: SolanaWeb3,
    options: SolanaTransfersOptions = {},
  ) {
    const registry = options.registry ?? defaultRegistry;
    const network = registry.network(options.network ?? 'solana');
    if (network.family !== 'solana') throw new Error(`${network.id} is not a Solana network`);
    this.network = network.id;
    this.nativeAsset = network.nativeCurrency.asset;
    this.decimals = (asset) => registry.decimals(asset);
    for (const [asset, mint] of Object.entries(options.mints ?? {})) {
      if (registry.findAssetOn(asset as AssetCode, network.id)?.standard !== 'spl') throw new Error(`${asset} is not an SPL token on ${network.id}`);
      if (!mint || !registry.isValidAddress(network.id, mint)) throw new Error(`the ${asset} mint "${String(mint)}" is not a Solana address`);
    }
    const mints = new Map<string, AssetCode>();
    for (const asset of registry.assetsOn(network.id)) {
      const entry = registry.assetOn(asset, network.id);
      const mint = options.mints?.[asset] ?? entry.contract;
      if (entry.standard !== 'spl' || !mint) continue;
      if (mints.has(mint)) throw new Error(`${mints.get(mint)} and ${asset} cannot share the mint ${mint}`);
      mints.set(mint, asset);
    }
    this.mints = mints;
  }

  /**
   * A transaction as getBlock / getTransaction answer it with `encoding: 'json'`. Null when it
   * failed or runs neither the System Program nor a token program (vote transactions, most of a
   * block): nothing to decode further.
   */
  decodeRpc(entry: SolanaRpcTransactionWithMeta): SolanaTransaction | null {
    const { transaction, meta } = entry;
    if (!meta) throw new Error(`transaction ${transaction.signatures[0]} has no status (meta): the node cannot tell whether it succeeded`);
    if (meta.err !== null && meta.err !== undefined) return null;
    const { message } = transaction;
    if (typeof message.accountKeys[0] !== 'string') throw new Error('a jsonParsed transaction: the Solana reader asks for encoding "json"');
    const keys = [...message.accountKeys, ...(meta.loadedAddresses?.writable ?? []), ...(meta.loadedAddresses?.readonly ?? [])];
    if (!this.runsMovers(keys, message.instructions, meta)) return null;
    const version = entry.version ?? (message.addressTableLookups ? 0 : 'legacy');
    const { PublicKey } = this.web3;
    let decoded: VersionedMessage;
    if (version === 'legacy') {
      decoded = new this.web3.Message({
        header: message.header,
        accountKeys: [...message.accountKeys],
        recentBlockhash: message.recentBlockhash,
        instructions: message.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: [...ix.accounts], data: ix.data })),
      });
    } else if (version === 0) {
      decoded = new this.web3.MessageV0({
        header: message.header,
        staticAccountKeys: message.accountKeys.map((key) => new PublicKey(key)),
        recentBlockhash: message.recentBlockhash,
        compiledInstructions: message.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accountKeyIndexes: [...ix.accounts], data: bytes(ix.data) })),
        addressTableLookups: (message.addressTableLookups ?? []).map((lookup) => ({
          accountKey: new PublicKey(lookup.accountKey),
          writableIndexes: [...lookup.writableIndexes],
          readonlyIndexes: [...lookup.readonlyIndexes],
        })),
      });
    } else {
      throw new Error(`transaction ${transaction.signatures[0]} has version ${String(version)}, which the Solana reader does not decode`);
    }
    return this.decoded(transaction.signatures[0], keys, decoded, meta);
  }

  /**
   * A transaction as its wire bytes (what a wallet signs and sends; getBlock with
   * `encoding: 'base64'`) with its meta in the RPC's JSON form. Null when it failed.
   */
  decodeWire(wire: Uint8Array, meta: SolanaRpcTransactionMeta): SolanaTransaction | null {
    if (meta.err !== null && meta.err !== undefined) return null;
    const transaction = this.web3.VersionedTransaction.deserialize(wire);
    const { message } = transaction;
    const keys = [
      ...message.staticAccountKeys.map((key) => key.toBase58()),
      ...(meta.loadedAddresses?.writable ?? []),
      ...(meta.loadedAddresses?.readonly ?? []),
    ];
    return this.decoded(base58Encode(transaction.signatures[0]), keys, message, meta);
  }

  /** The transfers of a coin the service accepts in a decoded transaction, in instruction order. */
  candidates(tx: SolanaTransaction): SolanaTransferCandidate[] {
    const inner = new Map<number, readonly SolanaRpcCompiledInstruction[]>();
    for (const group of tx.meta.innerInstructions ?? []) inner.set(group.index, group.instructions);
    const found: SolanaTransferCandidate[] = [];
    const visit = (ix: Instruction, index: number) => {
      const candidate = this.transferIn(tx, ix, index);
      if (candidate && candidate.amount > 0n && candidate.from !== candidate.to) found.push(candidate);
    };
    tx.instructions.forEach((ix, outer) => {
      visit(ix, outer * 1000 + TOP_LEVEL);
      // inner indexes 0..998 stay inside the outer instruction's thousand; a 1000th CPI in one
      // instruction is beyond what the compute budget allows
      (inner.get(outer) ?? []).slice(0, TOP_LEVEL).forEach((ix, position) => visit({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: bytes(ix.data) }, outer * 1000 + position));
    });
    return found;
  }

  /**
   * The candidates whose recipient is watched, as the watcher reports them: one
   * WatchedAddresses.watched call for every recipient of the batch, one watchedReferences call
   * (when the address book has it) for the references those transfers carry.
   */
  async match(candidates: readonly SolanaTransferCandidate[], block: BlockRef, watched: WatchedAddresses): Promise<ObservedTransfer[]> {
    if (candidates.length === 0) return [];
    const hits = await watched.watched('solana', [...new Set(candidates.map((c) => c.to))]);
    const matched = candidates.filter((c) => hits.has(c.to));
    const keys = [...new Set(matched.flatMap((c) => c.references))];
    const references = keys.length > 0 && watched.watchedReferences ? await watched.watchedReferences(keys) : new Map<string, string>();
    return matched.map((c) => ({
      network: this.network,
      txHash: c.txHash,
      index: c.index,
      asset: c.asset,
      amount: c.amount,
      to: c.to,
      from: c.from,
      block,
      reference: c.references.find((key) => references.has(key)) ?? null,
    }));
  }

  /** A block as getBlock answers it (`encoding: 'json'`, `transactionDetails: 'full'`) at `slot`, with its watched transfers. */
  async scanBlock(slot: number, block: SolanaRpcBlock, watched: WatchedAddresses): Promise<ScannedBlock> {
    const ref: BlockRef = block.blockTime === null ? { height: slot, hash: block.blockhash } : { height: slot, hash: block.blockhash, time: block.blockTime };
    const candidates: SolanaTransferCandidate[] = [];
    for (const entry of block.transactions ?? []) {
      const tx = this.decodeRpc(entry);
      if (tx) candidates.push(...this.candidates(tx));
    }
    return { ...ref, parentHash: block.previousBlockhash, transfers: await this.match(candidates, ref, watched) };
  }

  private decoded(signature: string, keys: string[], message: VersionedMessage, meta: SolanaRpcTransactionMeta): SolanaTransaction {
    const expected = message.staticAccountKeys.length + (message.version === 0 ? message.numAccountKeysFromLookups : 0);
    if (keys.length !== expected) throw new Error(`transaction ${signature}: ${keys.length} account keys with the loaded addresses, the message expects ${expected}`);
    const instructions = message.compiledInstructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accountKeyIndexes, data: ix.data }));
    return { signature, keys, message, instructions, meta };
  }

  /** Whether any instruction, top-level or inner, runs the System Program or a token program. */
  private runsMovers(keys: readonly string[], instructions: readonly SolanaRpcCompiledInstruction[], meta: SolanaRpcTransactionMeta): boolean {
    const mover = (ix: SolanaRpcCompiledInstruction) => {
      const program = keys[ix.programIdIndex];
      return program === SYSTEM_PROGRAM || program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM;
    };
    return instructions.some(mover) || (meta.innerInstructions ?? []).some((group) => group.instructions.some(mover));
  }

  private transferIn(tx: SolanaTransaction, ix: Instruction, index: number): SolanaTransferCandidate | null {
    const program = tx.keys[ix.programIdIndex];
    if (program === SYSTEM_PROGRAM) return this.solTransfer(tx, ix, index);
    if (program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM) return this.tokenTransfer(tx, ix, index, program);
    return null;
  }

  private solTransfer(tx: SolanaTransaction, ix: Instruction, index: number): SolanaTransferCandidate | null {
    if (this.nativeAsset === null) return null;
    // web3.js decodes; its tag is looked at first so that the other System instructions (account
    // creation, nonce advances: most of them) cost no PublicKey objects
    const tag = ix.data.length >= 4 ? new DataView(ix.data.buffer, ix.data.byteOffset, 4).getUint32(0, true) : -1;
    if (tag !== SYSTEM_TRANSFER && tag !== SYSTEM_TRANSFER_WITH_SEED) return null;
    const { SystemInstruction } = this.web3;
    const instruction = this.instruction(tx, ix);
    let decoded: { fromPubkey: { toBase58(): string }; toPubkey: { toBase58(): string }; lamports: bigint };
    let own: number;
    try {
      const type = SystemInstruction.decodeInstructionType(instruction);
      if (type === 'Transfer') {
        decoded = SystemInstruction.decodeTransfer(instruction);
        own = 2; // from, to
      } else if (type === 'TransferWithSeed') {
        decoded = SystemInstruction.decodeTransferWithSeed(instruction);
        own = 3; // from (derived), base, to
      } else {
        return null;
      }
    } catch {
      return null; // not an instruction web3.js knows, or too few accounts: it moved no SOL we can read
    }
    const to = decoded.toPubkey.toBase58();
    return {
      txHash: tx.signature,
      index,
      asset: this.nativeAsset,
      amount: BigInt(decoded.lamports),
      to,
      account: to,
      from: decoded.fromPubkey.toBase58(),
      references: this.references(tx, ix, own),
    };
  }

  private tokenTransfer(tx: SolanaTransaction, ix: Instruction, index: number, program: string): SolanaTransferCandidate | null {
    const { data, accounts } = ix;
    let amount: bigint;
    let decimals: number | null = null;
    let mint: string | null = null;
    let source: number, destination: number, authority: number, own: number;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    if (data[0] === TOKEN_TRANSFER && data.length >= 9 && accounts.length >= 3) {
      // Transfer { amount: u64 }: source, destination, authority (then multisig signers)
      amount = view.getBigUint64(1, true);
      [source, destination, authority, own] = [accounts[0], accounts[1], accounts[2], 3];
    } else if (data[0] === TOKEN_TRANSFER_CHECKED && data.length >= 10 && accounts.length >= 4) {
      // TransferChecked { amount: u64, decimals: u8 }: source, mint, destination, authority (then multisig signers)
      amount = view.getBigUint64(1, true);
      decimals = data[9];
      mint = tx.keys[accounts[1]];
      [source, destination, authority, own] = [accounts[0], accounts[2], accounts[3], 4];
    } else {
      return null;
    }
    const received = balanceOf(tx.meta, destination);
    if (!received?.owner) return null; // owner unknown (a node older than 1.9): cannot tell who received
    if (mint !== null && received.mint !== mint) return null;
    if (received.programId !== undefined && received.programId !== program) return null;
    const asset = this.mints.get(received.mint);
    if (asset === undefined) return null;
    if ((decimals ?? received.uiTokenAmount.decimals) !== this.decimals(asset)) return null;
    return {
      txHash: tx.signature,
      index,
      asset,
      amount,
      to: received.owner,
      account: tx.keys[destination],
      from: balanceOf(tx.meta, source)?.owner ?? tx.keys[authority] ?? null,
      references: this.references(tx, ix, own),
    };
  }

  /** Keys after the instruction's own `own` accounts that neither sign nor are writable. */
  private references(tx: SolanaTransaction, ix: Instruction, own: number): string[] {
    return ix.accounts.slice(own).filter((i) => !tx.message.isAccountSigner(i) && !tx.message.isAccountWritable(i)).map((i) => tx.keys[i]);
  }

  private instruction(tx: SolanaTransaction, ix: Instruction): TransactionInstruction {
    const { PublicKey, TransactionInstruction } = this.web3;
    return new TransactionInstruction({
      programId: new PublicKey(tx.keys[ix.programIdIndex]),
      keys: ix.accounts.map((i) => ({ pubkey: new PublicKey(tx.keys[i]), isSigner: tx.message.isAccountSigner(i), isWritable: tx.message.isAccountWritable(i) })),
      data: Buffer.from(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength),
    });
  }
}

/** The token balance entry of account `index`: after the transaction, or before it when the account was closed in it. */
function balanceOf(meta: SolanaRpcTransactionMeta, index: number): SolanaRpcTokenBalance | undefined {
  return meta.postTokenBalances?.find((b) => b.accountIndex === index) ?? meta.preTokenBalances?.find((b) => b.accountIndex === index);
}

function bytes(base58: string): Uint8Array {
  const decoded = base58Decode(base58);
  if (decoded === null) throw new Error(`instruction data is not base58: ${base58.slice(0, 32)}`);
  return decoded;
}
