import type { NetworkId } from '../registry';
import type { BlockRef, ObservedTransfer, WatchedAddresses } from '../watch';
import { type BitcoinBlock, type BitcoinTransaction, bitcoinOutputAddress } from './decode';
import type { BitcoinChain } from './network';

export interface BitcoinMatchOptions {
  /** How output scripts spell as addresses (default mainnet). */
  readonly chain?: BitcoinChain;
  /** The registry network the transfers are reported on (default `bitcoin`). */
  readonly network?: NetworkId;
}

interface Candidate {
  readonly tx: BitcoinTransaction;
  readonly vout: number;
  readonly amount: bigint;
  readonly address: string;
}

/**
 * The outputs of `transactions` that pay a watched address, as transfers in chain order
 * (transaction order, then vout). What is matched is an output's address: a payment to the
 * service is an output to an address it reserved. Inputs are not looked at: they spend earlier
 * outputs and name no address in raw form (the spent output's script lives in the earlier
 * transaction), so `from` is null. Outputs of zero satoshis pay nothing and are not reported.
 *
 * `watched` is asked once, with every distinct address the outputs pay.
 */
export async function watchedBitcoinTransfers(
  transactions: readonly BitcoinTransaction[],
  block: BlockRef,
  watched: WatchedAddresses,
  options: BitcoinMatchOptions = {},
): Promise<ObservedTransfer[]> {
  const chain = options.chain ?? 'mainnet';
  const network = options.network ?? 'bitcoin';
  const candidates: Candidate[] = [];
  const addresses = new Set<string>();
  for (const tx of transactions) {
    for (const output of tx.outputs) {
      if (output.amount <= 0n) continue;
      const address = bitcoinOutputAddress(output.script, chain);
      if (address === null) continue;
      candidates.push({ tx, vout: output.vout, amount: output.amount, address });
      addresses.add(address);
    }
  }
  if (addresses.size === 0) return [];
  const ours = await watched.watched('bitcoin', [...addresses]);
  if (ours.size === 0) return [];
  const blockRef: BlockRef = block;
  return candidates
    .filter((candidate) => ours.has(candidate.address))
    .map((candidate) => ({
      network,
      txHash: candidate.tx.txid,
      index: candidate.vout,
      asset: 'BTC',
      amount: candidate.amount,
      to: candidate.address,
      from: null,
      block: blockRef,
    }));
}

/** `watchedBitcoinTransfers` over a decoded block, at `height` (a raw block does not carry its height). */
export function watchedBitcoinBlockTransfers(
  block: BitcoinBlock,
  height: number,
  watched: WatchedAddresses,
  options: BitcoinMatchOptions = {},
): Promise<ObservedTransfer[]> {
  return watchedBitcoinTransfers(block.transactions, { height, hash: block.hash, time: block.time }, watched, options);
}
