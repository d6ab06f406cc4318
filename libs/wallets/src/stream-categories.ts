import { StreamCategory, streamCategory } from '@lib/eventstore';

/**
 * The wallets capability's streams (decision 0014's rule: names only through these):
 * - `wallet-<biz_id>`: the wallets of one business, one after another (a business has at most
 *   one at a time, so the rule "one wallet" is a rule of this one stream);
 * - `wallet_key-<sha256, 64 hex>`: which wallet holds a key (keyFingerprint), so key material
 *   used by one wallet — this business's or another's — is refused to every other (§7).
 */
const BUSINESS_ID = /biz_[A-Za-z0-9]{1,64}/;
export const WALLET_STREAM: StreamCategory = streamCategory('wallet', BUSINESS_ID);
export const WALLET_KEY_STREAM: StreamCategory = streamCategory('wallet_key', /[0-9a-f]{64}/);

/** `wallet_tx-<wal_id>`: the sends of one wallet (decision 0040): duplicates and reserved funds are rules of one stream. */
export const WALLET_TX_STREAM: StreamCategory = streamCategory('wallet_tx', /wal_[A-Za-z0-9]{1,64}/);

export const WALLET_STREAM_CATEGORIES: readonly StreamCategory[] = [WALLET_STREAM, WALLET_KEY_STREAM, WALLET_TX_STREAM];

const WALLET_TRANSACTION_ID = /^wtx_[A-Za-z0-9]{1,64}$/;
export const isWalletTransactionId = (id: string): boolean => WALLET_TRANSACTION_ID.test(id);

const WALLET_ID = /^wal_[A-Za-z0-9]{1,64}$/;
export const isWalletId = (id: string): boolean => WALLET_ID.test(id);

/** True for a well-formed business id, as `wallet-<biz_id>` takes it (wallets cannot import the businesses capability: it imports wallets). */
const BUSINESS_ID_ANCHORED = new RegExp(`^${BUSINESS_ID.source}$`);
export const isBusinessIdOfWallet = (id: string): boolean => BUSINESS_ID_ANCHORED.test(id);
