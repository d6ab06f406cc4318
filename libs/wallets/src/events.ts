import { eventOf, type EventUnion } from '@lib/eventstore';
import type { NetworkFamily } from '@lib/chains';
import { WALLET_KEY_STREAM, WALLET_STREAM } from './stream-categories';

/**
 * The stored events of the wallets capability. Type names and snake_case data are the stored
 * format: add optional fields, never rename or remove. No event carries a secret: a wallet that
 * holds its phrase publishes only its public keys here; the phrase is sealed in wallet_secrets.
 */

/** How the wallet came to be: made here, imported from a phrase, or connected by its public keys (keys kept elsewhere). */
export type WalletType = 'created' | 'imported' | 'external';

export interface WalletCreatedData {
  wallet_id: string;
  business_id: string;
  type: WalletType;
  /** EVM account extended public key (m/44'/60'/0'); addresses m/…/0/i. Null: no EVM receiving. */
  evm_xpub: string | null;
  /** Bitcoin BIP-84 account extended public key as supplied or derived (zpub or xpub); addresses m/…/0/i. */
  bitcoin_xpub: string | null;
  /**
   * Solana: `derived` — a fresh address per checkout from the sealed phrase (m/44'/501'/i'/0');
   * an external wallet's single `address` (kept, shown, but it cannot receive: one address is
   * not a fresh address per checkout, issue 19 A5); null when none.
   */
  solana: { derived: true } | { address: string } | null;
}

/** Key material taken by a wallet (the stream is named by its fingerprint). */
export interface WalletKeyClaimedData {
  wallet_id: string;
  business_id: string;
  family: NetworkFamily;
}

/**
 * DELETE /wallet once the business has received a payment or finished setup (decision 0041): the
 * wallet is deleted at `effective_at` (24 hours of business time later) unless canceled first.
 * `token_hash` is the SHA-256 of the cancel link's token; the token itself is only e-mailed.
 */
export interface WalletDeletionRequestedData {
  change_id: string;
  wallet_id: string;
  business_id: string;
  requested_at: string;
  effective_at: string;
  token_hash: string;
}

/**
 * A pending deletion canceled, through the e-mailed link (`link`) or from the dashboard
 * (`dashboard`), or withdrawn by its own request because its notice could not be e-mailed
 * (`undelivered`: that request answered 503 email_unavailable; decision 0041, 2026-11-29).
 */
export interface WalletChangeCanceledData {
  change_id: string;
  wallet_id: string;
  business_id: string;
  canceled_at: string;
  via: 'link' | 'dashboard' | 'undelivered';
}

/** The wallet removed: at once during setup (`change_id` null), or by its pending change at `effective_at`. */
export interface WalletDeletedData {
  wallet_id: string;
  business_id: string;
  change_id: string | null;
  deleted_at: string;
}

/** The business finished setup (decision 0041): it had a wallet then (the rule of this stream). */
export interface BusinessSetupFinishedData {
  business_id: string;
  wallet_id: string;
  finished_at: string;
}

/**
 * The recovery phrase of a wallet created or imported here was shown (POST
 * /wallet/recovery-phrase, decision 0041 "Recovery phrase"): who asked (`account_id`, a
 * stepped-up dashboard session) and when. An audit record only: never the phrase itself.
 */
export interface WalletRecoveryPhraseRevealedData {
  wallet_id: string;
  business_id: string;
  account_id: string;
  revealed_at: string;
}

export type WalletEvent = EventUnion<{
  WalletCreated: WalletCreatedData;
  WalletDeletionRequested: WalletDeletionRequestedData;
  WalletChangeCanceled: WalletChangeCanceledData;
  WalletDeleted: WalletDeletedData;
  BusinessSetupFinished: BusinessSetupFinishedData;
  WalletRecoveryPhraseRevealed: WalletRecoveryPhraseRevealedData;
}>;
export type WalletKeyEvent = EventUnion<{ WalletKeyClaimed: WalletKeyClaimedData }>;

export const WALLET_EVENT_TYPES = ['WalletCreated', 'WalletDeletionRequested', 'WalletChangeCanceled', 'WalletDeleted', 'BusinessSetupFinished', 'WalletRecoveryPhraseRevealed'] as const;

/** A recorded event as a wallet event, or null (another stream's, or a type this version does not know). */
export function asWalletEvent(event: { stream?: string; type: string; data: unknown }): WalletEvent | null {
  return eventOf<WalletEvent>(WALLET_STREAM, WALLET_EVENT_TYPES, event);
}

export function asWalletKeyEvent(event: { stream?: string; type: string; data: unknown }): WalletKeyEvent | null {
  return eventOf<WalletKeyEvent>(WALLET_KEY_STREAM, ['WalletKeyClaimed'], event);
}
