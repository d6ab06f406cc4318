import type { SolanaRpcBlock } from './rpc-types';

/** An error the node answered (JSON-RPC `error`), with its code. */
export class SolanaRpcError extends Error {
  override readonly name = 'SolanaRpcError';
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${method}: ${message} (${code})`);
  }
}

/**
 * JSON-RPC error codes (agave rpc/src/custom_error.rs) meaning "no block at this slot, for now
 * or for good": not available yet, skipped (recent ledger, long-term storage), status not
 * available yet. Providers answer -32004 for some skipped slots too.
 */
export const SOLANA_NO_BLOCK_CODES: ReadonlySet<number> = new Set([-32004, -32007, -32009, -32014]);

export type SolanaCommitment = 'confirmed' | 'finalized';

export interface SolanaGetBlockConfig {
  readonly commitment: SolanaCommitment;
  readonly transactionDetails: 'full' | 'none';
  readonly maxSupportedTransactionVersion: number;
}

/**
 * The JSON-RPC methods the Solana reader needs, over fetch: one POST per call, a deadline per
 * request, no retries (the watcher retries), no batching (a mainnet block in full is megabytes).
 */
export class SolanaRpc {
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call<T>(method: string, params: readonly unknown[]): Promise<T> {
    const id = this.nextId++;
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw new Error(`${method}: the Solana node answered HTTP ${response.status} ${text.slice(0, 200)}`.trim());
    }
    const body = (await response.json()) as { id?: unknown; result?: T; error?: { code: number; message: string; data?: unknown } };
    if (body.error) throw new SolanaRpcError(method, body.error.code, body.error.message, body.error.data);
    if (body.id !== id || !('result' in body)) throw new Error(`${method}: not a JSON-RPC answer to request ${id}`);
    return body.result as T;
  }

  getSlot(commitment: SolanaCommitment): Promise<number> {
    return this.call<number>('getSlot', [{ commitment }]);
  }

  getGenesisHash(): Promise<string> {
    return this.call<string>('getGenesisHash', []);
  }

  /** Slots that have a block between `start` and `end` (inclusive; at most 500,000 apart), at `commitment`. */
  getBlocks(start: number, end: number, commitment: SolanaCommitment): Promise<number[]> {
    return this.call<number[]>('getBlocks', [start, end, { commitment }]);
  }

  /** The block at `slot` (`encoding: 'json'`, no rewards); null when there is none there (skipped, or not yet). */
  async getBlock(slot: number, config: SolanaGetBlockConfig): Promise<SolanaRpcBlock | null> {
    try {
      return await this.call<SolanaRpcBlock | null>('getBlock', [slot, { encoding: 'json', rewards: false, ...config }]);
    } catch (error) {
      if (error instanceof SolanaRpcError && SOLANA_NO_BLOCK_CODES.has(error.code)) return null;
      throw error;
    }
  }
}
