/**
 * The JSON a Solana node answers with `encoding: 'json'` (getBlock, getTransaction), as far as
 * the watcher reads it (https://solana.com/docs/rpc/json-structures). Fields the watcher never
 * reads (balances, logs, rewards) are left out of the types; they may be present.
 *
 * Lamport balances (`preBalances`, `fee`) are JSON numbers and lose precision above 2^53 in
 * JSON.parse: the watcher never reads them. Amounts come from instruction data (u64, read as
 * bigint) and token amounts from decimal strings.
 */

/** Which keys of the message sign and which are read-only (the message header). */
export interface SolanaRpcMessageHeader {
  readonly numRequiredSignatures: number;
  readonly numReadonlySignedAccounts: number;
  readonly numReadonlyUnsignedAccounts: number;
}

/** An instruction with its program and accounts as indexes into the transaction's account keys. */
export interface SolanaRpcCompiledInstruction {
  readonly programIdIndex: number;
  readonly accounts: readonly number[];
  /** Instruction data, base58. */
  readonly data: string;
  /** 1 for a top-level instruction, 2+ for one made through CPI (null or absent on older nodes). */
  readonly stackHeight?: number | null;
}

export interface SolanaRpcAddressTableLookup {
  readonly accountKey: string;
  readonly writableIndexes: readonly number[];
  readonly readonlyIndexes: readonly number[];
}

export interface SolanaRpcMessage {
  /** The message's own (static) keys, base58. Keys loaded from lookup tables are in meta.loadedAddresses. */
  readonly accountKeys: readonly string[];
  readonly header: SolanaRpcMessageHeader;
  readonly recentBlockhash: string;
  readonly instructions: readonly SolanaRpcCompiledInstruction[];
  /** Present on version-0 transactions. */
  readonly addressTableLookups?: readonly SolanaRpcAddressTableLookup[] | null;
}

export interface SolanaRpcTransaction {
  /** Base58; the first is the transaction's id. */
  readonly signatures: readonly string[];
  readonly message: SolanaRpcMessage;
}

/** The instructions programs ran through CPI while executing top-level instruction `index`. */
export interface SolanaRpcInnerInstructions {
  readonly index: number;
  readonly instructions: readonly SolanaRpcCompiledInstruction[];
}

/** A token account's balance before or after the transaction. */
export interface SolanaRpcTokenBalance {
  /** Index of the token account in the transaction's account keys (static, then loaded writable, then loaded read-only). */
  readonly accountIndex: number;
  readonly mint: string;
  /** The token account's owner (a wallet address); absent on nodes older than 1.9. */
  readonly owner?: string;
  /** The token program that owns the account (absent on older nodes). */
  readonly programId?: string;
  readonly uiTokenAmount: {
    /** Smallest units, decimal string. */
    readonly amount: string;
    readonly decimals: number;
  };
}

export interface SolanaRpcLoadedAddresses {
  readonly writable: readonly string[];
  readonly readonly: readonly string[];
}

export interface SolanaRpcTransactionMeta {
  /** Null when the transaction succeeded; the error otherwise (its fee was still charged). */
  readonly err: unknown;
  readonly innerInstructions?: readonly SolanaRpcInnerInstructions[] | null;
  readonly preTokenBalances?: readonly SolanaRpcTokenBalance[] | null;
  readonly postTokenBalances?: readonly SolanaRpcTokenBalance[] | null;
  /** Keys a version-0 transaction loaded from address lookup tables. */
  readonly loadedAddresses?: SolanaRpcLoadedAddresses | null;
}

/** One transaction of a block (getBlock) or getTransaction's answer, `encoding: 'json'`. */
export interface SolanaRpcTransactionWithMeta {
  readonly transaction: SolanaRpcTransaction;
  readonly meta: SolanaRpcTransactionMeta | null;
  /** 'legacy' or 0 when maxSupportedTransactionVersion was given; absent otherwise (legacy). */
  readonly version?: 'legacy' | number;
}

/** getBlock's answer with `transactionDetails: 'full'` (or 'none': no `transactions`). */
export interface SolanaRpcBlock {
  readonly blockhash: string;
  readonly previousBlockhash: string;
  readonly parentSlot: number;
  readonly blockHeight: number | null;
  readonly blockTime: number | null;
  readonly transactions?: readonly SolanaRpcTransactionWithMeta[];
}
