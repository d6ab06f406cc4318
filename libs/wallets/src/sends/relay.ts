import { Inject, Injectable } from '@nestjs/common';
import { BaseError, HttpRequestError, TimeoutError, TransactionNotFoundError, createPublicClient, decodeFunctionData, erc20Abi, http, parseTransaction, recoverTransactionAddress, type Hex } from 'viem';
import { AssetCode, ChainRegistry, NetworkId, SolanaRpcTransactionWithMeta, SolanaTransfers, family, loadSolanaWeb3 } from '@lib/chains';
import { APP_CONFIG, AppConfig } from '@lib/core';
import { DomainRefusal } from '@lib/domain';
import { sendingRegistry } from './wallet-sends';

/**
 * What the chain says of a relayed transaction: not mined (pending), mined and succeeded (for an
 * external record: and matching it), or failed. `confirmations`: blocks (slots on Solana) from its
 * block to the head, its own included, as the chain watchers count them — a verdict read from a
 * block is final only once they reach the network's required count (isFinal); absent on a failure
 * no block decides (an external record's transaction is not the one recorded).
 */
export type ChainOutcome =
  | { status: 'pending' }
  | { status: 'confirmed'; block: number | null; feeUnits: string | null; confirmations: number }
  | { status: 'failed'; reason: string; confirmations?: number; feeUnits?: string | null };

/** The node answered and refused the transaction (409 transaction_rejected; nothing is recorded as sent). */
export const transactionRejected = (detail: string) => new DomainRefusal('transaction_rejected', `The network refused this transaction: ${detail}`, 'signed_transaction');
/** The node could not be reached (503 network_unavailable; a retry with the same Idempotency-Key relays the same bytes). */
export const networkUnavailable = (network: NetworkId) => new DomainRefusal('network_unavailable', `The ${network} network cannot be reached now; retry with the same Idempotency-Key.`);

/** Node messages meaning "this exact transaction is already there": a second relay of the same bytes is a success. */
const ALREADY_KNOWN = /already known|already imported|known transaction|AlreadyProcessed|already been processed/i;

/** Marker: the node already has this transaction (a retry): the relay succeeded. */
const ALREADY_RELAYED = new Error('already relayed');

/** getTransaction's answer (`encoding: 'json'`): the transaction with its meta (`fee` in lamports) and slot. */
type SolanaTransactionAnswer = SolanaRpcTransactionWithMeta & { slot?: number; meta: (NonNullable<SolanaRpcTransactionWithMeta['meta']> & { fee?: number }) | null };

/**
 * Relays signed sends through the network's node (decision 0040): the EVM node of
 * EVM_RPC_URL_<NETWORK> (viem `sendRawTransaction`, decisions 0021/0025), the Solana node of
 * SOLANA_RPC_URL (JSON-RPC `sendTransaction`, base64). A node that answers with an error refuses
 * the transaction; one that does not answer is unavailable. Relaying the same bytes twice is fine.
 */
@Injectable()
export class WalletRelay {
  private readonly registry: ChainRegistry;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.registry = sendingRegistry(config);
  }

  private evmUrl(network: NetworkId): string | null {
    return (this.config.evmRpcUrls as Partial<Record<string, string>>)[network] ?? null;
  }

  private client(network: NetworkId) {
    const url = this.evmUrl(network);
    if (url === null) throw networkUnavailable(network);
    return createPublicClient({ transport: http(url, { retryCount: 0, timeout: 10_000 }) });
  }

  /** Broadcasts `raw` (0x hex on EVM, base64 on Solana). Throws transaction_rejected or network_unavailable. */
  async relay(network: NetworkId, raw: string): Promise<void> {
    if (family(network) === 'solana') return this.relaySolana(raw);
    try {
      await this.client(network).sendRawTransaction({ serializedTransaction: raw as Hex });
    } catch (error) {
      if (error instanceof DomainRefusal) throw error;
      const failure = this.classify(network, error);
      if (failure !== ALREADY_RELAYED) throw failure;
    }
  }

  private classify(network: NetworkId, error: unknown): Error {
    if (error instanceof BaseError) {
      const unreachable = error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError);
      const detail = error.walk() as BaseError;
      const text = `${error.shortMessage} ${detail?.message ?? ''} ${error.details ?? ''}`;
      if (ALREADY_KNOWN.test(text)) return ALREADY_RELAYED;
      // an HTTP answer with a JSON-RPC error body is a refusal; no answer (or a 5xx without one) is unavailability
      if (unreachable && !(unreachable instanceof HttpRequestError && unreachable.status !== undefined && unreachable.status < 500)) return networkUnavailable(network);
      return transactionRejected(error.details || error.shortMessage);
    }
    return networkUnavailable(network);
  }

  /** One JSON-RPC call to SOLANA_RPC_URL; network_unavailable when it does not answer (no URL, no connection, timeout, 5xx, not JSON). */
  private async solanaCall<T>(method: string, params: unknown[]): Promise<{ error?: { message?: string }; result?: T }> {
    const url = this.config.solanaRpcUrl;
    if (url === null) throw networkUnavailable('solana');
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        signal: AbortSignal.timeout(10_000),
      });
      if (response.status >= 500) throw new Error(`HTTP ${response.status}`);
      return (await response.json()) as { error?: { message?: string }; result?: T };
    } catch {
      throw networkUnavailable('solana');
    }
  }

  private async relaySolana(wire: string): Promise<void> {
    const answer = await this.solanaCall<string>('sendTransaction', [wire, { encoding: 'base64', preflightCommitment: 'confirmed' }]);
    if (answer.error) {
      if (ALREADY_KNOWN.test(answer.error.message ?? '')) return;
      throw transactionRejected(answer.error.message ?? 'refused');
    }
  }

  /** Where a relayed transaction stands on the chain (a receipt poll), with its confirmations; unreachable nodes answer pending. */
  async outcome(network: NetworkId, hash: string): Promise<ChainOutcome> {
    if (family(network) === 'solana') return this.solanaOutcome(hash);
    if (family(network) !== 'evm' || this.evmUrl(network) === null) return { status: 'pending' };
    const client = this.client(network);
    try {
      const receipt = await client.getTransactionReceipt({ hash: hash as Hex });
      const confirmations = await this.evmConfirmations(client, receipt);
      if (receipt.status === 'success') return { status: 'confirmed', block: Number(receipt.blockNumber), feeUnits: (receipt.gasUsed * receipt.effectiveGasPrice).toString(), confirmations };
      return { status: 'failed', reason: 'The transaction was mined but reverted.', confirmations, feeUnits: (receipt.gasUsed * receipt.effectiveGasPrice).toString() };
    } catch {
      return { status: 'pending' };
    }
  }

  /**
   * A receipt's confirmations as the EVM watcher counts them: head − its block's height + 1, the
   * head read after the receipt; 0 when the chain's block at that height is no longer the
   * receipt's (a reorganisation between the reads: the next round reads again) or cannot be read.
   */
  private async evmConfirmations(client: ReturnType<WalletRelay['client']>, receipt: { blockNumber: bigint; blockHash: Hex }): Promise<number> {
    try {
      const head = await client.getBlockNumber({ cacheTime: 0 });
      const block = await client.getBlock({ blockNumber: receipt.blockNumber });
      if (block.hash !== receipt.blockHash) return 0;
      return Math.max(0, Number(head - receipt.blockNumber) + 1);
    } catch {
      return 0;
    }
  }

  /**
   * A Solana transaction's confirmations as the Solana watcher counts them (decision 0022): the
   * node's slot at `confirmed` commitment − the transaction's slot + 1, skipped slots counted; 0
   * when the node does not answer.
   */
  private async solanaConfirmations(slot: number | undefined): Promise<number> {
    if (typeof slot !== 'number') return 0;
    try {
      const answer = await this.solanaCall<number>('getSlot', [{ commitment: 'confirmed' }]);
      return !answer.error && typeof answer.result === 'number' ? Math.max(0, answer.result - slot + 1) : 0;
    } catch {
      return 0;
    }
  }

  /**
   * Does the network's node know this transaction (in its pool or on the chain)? null when it
   * cannot tell (unreachable, no node configured). What settles a hold a crash left between the
   * relay and the record: known → it was relayed; unknown long after → it never was.
   */
  async known(network: NetworkId, hash: string): Promise<boolean | null> {
    if (family(network) === 'solana') {
      try {
        const answer = await this.solanaCall<unknown>('getTransaction', [hash, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }]);
        return answer.error ? null : answer.result !== null && answer.result !== undefined;
      } catch {
        return null;
      }
    }
    if (family(network) !== 'evm' || this.evmUrl(network) === null) return null;
    try {
      await this.client(network).getTransaction({ hash: hash as Hex });
      return true;
    } catch (error) {
      return error instanceof BaseError && error.walk((e) => e instanceof TransactionNotFoundError) ? false : null;
    }
  }

  /**
   * A Solana send by its signature: `getTransaction` at confirmed commitment — none yet is pending,
   * an error in its meta is failed (the fee was still charged), else confirmed with the fee in
   * lamports and its slot; both with the slots counted on top of it.
   */
  private async solanaOutcome(signature: string): Promise<ChainOutcome> {
    const found = await this.solanaTransaction(signature);
    if (found === null) return { status: 'pending' };
    const confirmations = await this.solanaConfirmations(found.slot);
    const feeUnits = typeof found.meta.fee === 'number' ? String(found.meta.fee) : null;
    if (found.meta.err !== null && found.meta.err !== undefined) return { status: 'failed', reason: `The transaction failed on the network: ${JSON.stringify(found.meta.err)}.`, confirmations, feeUnits };
    return { status: 'confirmed', block: typeof found.slot === 'number' ? found.slot : null, feeUnits, confirmations };
  }

  /**
   * A Solana transaction by its signature (`getTransaction` at confirmed commitment) with its
   * meta and slot; null while the node has none, answers an error or cannot be reached (both
   * callers read that as still pending).
   */
  private async solanaTransaction(signature: string): Promise<(SolanaTransactionAnswer & { meta: NonNullable<SolanaTransactionAnswer['meta']> }) | null> {
    let answer: { error?: { message?: string }; result?: SolanaTransactionAnswer | null };
    try {
      answer = await this.solanaCall('getTransaction', [signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }]);
    } catch {
      return null;
    }
    const found = answer.result;
    if (answer.error || !found || !found.meta) return null;
    return { ...found, meta: found.meta };
  }

  /**
   * An external record against the chain (EVM): pending until its receipt; failed when it reverted
   * or when its sender is not one of the wallet's addresses, or it does not pay exactly `units` of
   * `asset` to `to`; confirmed otherwise. Solana: the transaction from `getTransaction`, its
   * transfers found as the watcher finds them (SolanaTransfers). Bitcoin records stay pending here
   * (decision 0040).
   */
  async matchExternal(network: NetworkId, hash: string, expected: { asset: AssetCode; units: bigint; to: string; from: readonly string[] }): Promise<ChainOutcome> {
    if (family(network) === 'solana') return this.matchSolanaExternal(hash, expected);
    if (family(network) !== 'evm' || this.evmUrl(network) === null) return { status: 'pending' };
    const client = this.client(network);
    let receipt: Awaited<ReturnType<typeof client.getTransactionReceipt>>;
    let tx: Awaited<ReturnType<typeof client.getTransaction>>;
    try {
      receipt = await client.getTransactionReceipt({ hash: hash as Hex });
      tx = await client.getTransaction({ hash: hash as Hex });
    } catch {
      return { status: 'pending' };
    }
    const confirmations = await this.evmConfirmations(client, receipt);
    if (receipt.status !== 'success') return { status: 'failed', reason: 'The transaction was mined but reverted.', confirmations };
    const same = (a: string | null | undefined, b: string) => !!a && this.registry.sameAddress(network, a, b);
    if (!expected.from.some((a) => same(tx.from, a))) return { status: 'failed', reason: 'The transaction was not sent from one of this wallet’s addresses.' };
    const on = this.registry.assetOn(expected.asset, network);
    let recipient: string | null = null;
    let amount = 0n;
    if (on.kind === 'native') {
      if (tx.input && tx.input !== '0x') return { status: 'failed', reason: `The transaction is not a ${expected.asset} transfer.` };
      recipient = tx.to;
      amount = tx.value;
    } else {
      if (!same(tx.to, on.contract!)) return { status: 'failed', reason: `The transaction does not move ${expected.asset}.` };
      try {
        const call = decodeFunctionData({ abi: erc20Abi, data: tx.input });
        if (call.functionName !== 'transfer') return { status: 'failed', reason: `The transaction is not a ${expected.asset} transfer.` };
        [recipient, amount] = call.args as readonly [string, bigint];
      } catch {
        return { status: 'failed', reason: `The transaction is not a ${expected.asset} transfer.` };
      }
    }
    if (!same(recipient, expected.to)) return { status: 'failed', reason: 'The transaction pays another address than to_address.' };
    if (amount !== expected.units) return { status: 'failed', reason: 'The transaction pays another amount than the record.' };
    return { status: 'confirmed', block: Number(receipt.blockNumber), feeUnits: null, confirmations };
  }

  /** matchExternal on Solana: one transfer of the transaction must be from the wallet, of the asset, to `to`, of exactly `units`. */
  private async matchSolanaExternal(signature: string, expected: { asset: AssetCode; units: bigint; to: string; from: readonly string[] }): Promise<ChainOutcome> {
    const found = await this.solanaTransaction(signature);
    if (found === null) return { status: 'pending' };
    const confirmations = await this.solanaConfirmations(found.slot);
    if (found.meta.err !== null && found.meta.err !== undefined) return { status: 'failed', reason: 'The transaction failed on the network.', confirmations };
    const transfers = new SolanaTransfers(await loadSolanaWeb3(), { registry: this.registry });
    const decoded = transfers.decodeRpc(found);
    const candidates = decoded === null ? [] : transfers.candidates(decoded);
    const fromWallet = candidates.filter((c) => c.from !== null && expected.from.includes(c.from));
    if (fromWallet.length === 0) return { status: 'failed', reason: 'The transaction was not sent from one of this wallet’s addresses.' };
    const ofAsset = fromWallet.filter((c) => c.asset === expected.asset);
    if (ofAsset.length === 0) return { status: 'failed', reason: `The transaction does not move ${expected.asset}.` };
    const toRecipient = ofAsset.filter((c) => c.to === expected.to);
    if (toRecipient.length === 0) return { status: 'failed', reason: 'The transaction pays another address than to_address.' };
    if (!toRecipient.some((c) => c.amount === expected.units)) return { status: 'failed', reason: 'The transaction pays another amount than the record.' };
    return { status: 'confirmed', block: typeof found.slot === 'number' ? found.slot : null, feeUnits: null, confirmations };
  }

  /**
   * A pending signed send its node no longer knows, neither in the pool nor on the chain (the
   * network dropped it, or a reorganisation took its block away and the node did not put it back
   * in its pool, as anvil does not). `never_lands` (with the reason) when it can no longer be
   * mined: on EVM its sender's nonce on the chain has moved past the transaction's own (another
   * transaction used it); on Solana the recent blockhash it was signed on is no longer valid.
   * Otherwise its signed bytes are relayed again (`relayed_again`; the same hash, nonce or
   * blockhash: it can land once, and only as signed). null when the node knows it, cannot tell
   * (unreachable), refuses the bytes again (it then waits for the next round), or the transaction
   * cannot be read. `raw` is asked for only once the node does not know the hash (the caller reads
   * it from the log).
   */
  async forgotten(network: NetworkId, hash: string, raw: () => Promise<string | null>): Promise<{ fate: 'never_lands'; reason: string } | { fate: 'relayed_again' } | null> {
    if (family(network) === 'evm' && this.evmUrl(network) === null) return null;
    if (family(network) !== 'evm' && family(network) !== 'solana') return null;
    if ((await this.known(network, hash)) !== false) return null;
    const signed = await raw();
    if (signed === null) return null;
    try {
      const landable = family(network) === 'solana' ? await this.solanaLandable(signed) : await this.evmLandable(network, signed);
      if (landable === null) return null;
      if (landable === true) {
        await this.relay(network, signed);
        return { fate: 'relayed_again' };
      }
      // it cannot be mined any more: unless this very transaction landed meanwhile (a receipt now), it never will be
      return (await this.outcome(network, hash)).status === 'pending' ? { fate: 'never_lands', reason: landable } : null;
    } catch {
      return null;
    }
  }

  /** true while the EVM transaction's nonce is unused on the chain; the reason it never lands once used. */
  private async evmLandable(network: NetworkId, signed: string): Promise<true | string | null> {
    const tx = parseTransaction(signed as Hex);
    if (tx.nonce === undefined) return null;
    const from = await recoverTransactionAddress({ serializedTransaction: signed as Parameters<typeof recoverTransactionAddress>[0]['serializedTransaction'] });
    const used = await this.client(network).getTransactionCount({ address: from, blockTag: 'latest' });
    return used <= tx.nonce ? true : 'The network dropped this transaction: another transaction from its sender used its nonce, so it can never be mined.';
  }

  /** true while the Solana transaction's recent blockhash is valid (`isBlockhashValid`); the reason it never lands once not. */
  private async solanaLandable(wire: string): Promise<true | string | null> {
    const web3 = await loadSolanaWeb3();
    const blockhash = web3.VersionedTransaction.deserialize(Buffer.from(wire, 'base64')).message.recentBlockhash;
    const answer = await this.solanaCall<{ value?: unknown }>('isBlockhashValid', [blockhash, { commitment: 'processed' }]);
    if (answer.error || typeof answer.result?.value !== 'boolean') return null;
    return answer.result.value ? true : 'The network dropped this transaction and the blockhash it was signed on has expired, so it can never be processed.';
  }

  /**
   * What a dashboard needs to build an EVM transaction from `from`: the next nonce (pending
   * included) and the fee per gas for each speed (the node's estimate: slow 1×, standard 1.25×,
   * fast 2× of the base fee part; priority 1, 1.5, 2 gwei or the node's). Throws network_unavailable.
   */
  async evmContext(network: NetworkId, from: string): Promise<{ nonce: number; fees: Record<'slow' | 'standard' | 'fast', { max_fee_per_gas: string; max_priority_fee_per_gas: string }> }> {
    const client = this.client(network);
    try {
      const [nonce, block] = await Promise.all([client.getTransactionCount({ address: from as Hex, blockTag: 'pending' }), client.getBlock({ blockTag: 'latest' })]);
      const base = block.baseFeePerGas ?? 0n;
      const gwei = 1_000_000_000n;
      const fee = (numerator: bigint, priority: bigint) => ({ max_fee_per_gas: ((base * numerator) / 4n + priority).toString(), max_priority_fee_per_gas: priority.toString() });
      return { nonce, fees: { slow: fee(4n, gwei), standard: fee(5n, (gwei * 3n) / 2n), fast: fee(8n, 2n * gwei) } };
    } catch (error) {
      if (error instanceof DomainRefusal) throw error;
      throw networkUnavailable(network);
    }
  }
}
