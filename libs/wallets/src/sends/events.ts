import { eventOf, type EventUnion } from '@lib/eventstore';
import type { AssetCode, NetworkId } from '@lib/chains';
import { WALLET_TX_STREAM } from '../stream-categories';

/**
 * The stored events of wallet sends (decision 0040), on one stream per wallet
 * (`wallet_tx-<wal_id>`): every transaction the wallet sent, so a hash recorded twice and the
 * funds reserved by pending sends are rules of one stream. Type names and snake_case data are the
 * stored format: add optional fields, never rename or remove. Amounts are decimal strings of
 * smallest units (bigint).
 */

export type WalletSendKind = 'signed' | 'external';
export type WalletSendSpeed = 'slow' | 'standard' | 'fast';

export interface WalletTransactionRecordedData {
  wallet_transaction_id: string;
  wallet_id: string;
  business_id: string;
  mode: 'live' | 'test';
  kind: WalletSendKind;
  asset: AssetCode;
  network: NetworkId;
  /** Smallest units of the asset. */
  units: string;
  /** The signer (signed) or null until the chain shows it (external). */
  from_address: string | null;
  to_address: string;
  /** Lower case for hex hashes; a Solana signature as base58. */
  tx_hash: string;
  speed: WalletSendSpeed;
  note: string | null;
  /** The most the network fee can cost, in the network coin's smallest units (gas × maxFeePerGas); null for external records. */
  max_fee_units: string | null;
  /** The relayed bytes (public once broadcast), so a retry relays the same transaction; null for external records. */
  raw: string | null;
  /** Who pays the fee when it is not `from_address`: the wallet address submitting an EIP-3009 authorization. Absent: the sender. */
  fee_payer?: string | null;
  /** The gas-funding transaction relayed first (EVM), from another address of the wallet to the sender. Absent: none. */
  funding?: WalletSendFunding | null;
  /**
   * A funding transaction recorded as a wallet transaction of its own (decision 0040, addendum
   * 2026-11-28 "a funding transaction on the books"): the id of the send whose
   * `funding_transaction` brought it. Absent: an ordinary send.
   */
  funding_of?: string;
  /** USD cents of the amount at the rate of the send's time (the service's rates); absent or null when no rate was had. */
  value_usd?: number | null;
  /**
   * A signed send: USD cents of the network fee its transaction sets (EVM gas limit × max fee per
   * gas; Solana 5000 lamports a signature plus its priority fee), at the fee coin's rate of the
   * send's time — until the chain's own fee replaces it on confirmation. Absent (events written
   * before it) or null when the fee coin has no rate (Polygon's POL) or none was had.
   */
  network_fee_usd?: number | null;
}

/** A funding transaction of a send: the funder's coin it takes (value and greatest fee), credited to the sender. */
export interface WalletSendFunding {
  from: string;
  tx_hash: string;
  /** Smallest units of the network coin it sends to the sender. */
  units: string;
  /** Its greatest fee, in the network coin's smallest units. */
  max_fee_units: string;
  raw: string;
  /**
   * The wallet transaction the funding is recorded as, of its own (held with the send, recorded once
   * relayed, settled by its own receipt): then its record holds the funder's coin and credits the
   * sender, not the send. Absent on events written before (decision 0040, addendum 2026-11-28): the
   * send itself holds and credits it, as it did.
   */
  wallet_transaction_id?: string;
}

export interface WalletTransactionConfirmedData {
  wallet_transaction_id: string;
  /** The fee the chain charged, in the network coin's smallest units, when known. */
  fee_units: string | null;
  block: number | null;
  /** USD cents of the fee paid, at the rate of the confirmation's time; absent or null when unknown. */
  network_fee_usd?: number | null;
  /** An external record proved by the chain: USD cents of its amount at the rate of that time; absent or null when unknown. */
  value_usd?: number | null;
}

export interface WalletTransactionFailedData {
  wallet_transaction_id: string;
  reason: string;
  /**
   * A signed send mined and failed on the chain (reverted; a Solana error): the fee the chain
   * charged all the same, in the network coin's smallest units — it stays spent on the fee payer
   * (decision 0040, addendum 2026-11-28, later). Absent when nothing was mined or not known.
   */
  fee_units?: string | null;
  /** USD cents of that fee at the rate of the failure's time; absent or null when unknown. */
  network_fee_usd?: number | null;
}

export interface WalletSendReleasedData {
  wallet_transaction_id: string;
  reason: string;
}

export type WalletTransactionEvent = EventUnion<{
  /** A signed send's funds held while it is relayed (not yet a wallet transaction: no record shows it). */
  WalletSendReserved: WalletTransactionRecordedData;
  /** The node refused it, or could not be reached: the hold ends, nothing was sent. */
  WalletSendReleased: WalletSendReleasedData;
  WalletTransactionRecorded: WalletTransactionRecordedData;
  WalletTransactionConfirmed: WalletTransactionConfirmedData;
  WalletTransactionFailed: WalletTransactionFailedData;
}>;

export const WALLET_TRANSACTION_EVENT_TYPES = ['WalletSendReserved', 'WalletSendReleased', 'WalletTransactionRecorded', 'WalletTransactionConfirmed', 'WalletTransactionFailed'] as const;

export function asWalletTransactionEvent(event: { stream?: string; type: string; data: unknown }): WalletTransactionEvent | null {
  return eventOf<WalletTransactionEvent>(WALLET_TX_STREAM, WALLET_TRANSACTION_EVENT_TYPES, event);
}
