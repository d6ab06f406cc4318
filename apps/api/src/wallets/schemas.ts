import type { SchemaObject } from '@nestjs/swagger';
import { ASSET_CODES, NETWORK_IDS } from '@lib/chains';
import { deletedResource, int, kind, nullable, object, propertiesOf, ref, resource, str, timestamp } from '../platform/resource-schemas';

/** OpenAPI schemas of the wallet routes (decision 0024), as WalletView renders them. */
export const WALLET_SCHEMA = ref('Wallet');
export const CREATED_WALLET_SCHEMA = ref('WalletWithRecoveryPhrase');
export const WALLET_TRANSACTION_SCHEMA = ref('WalletTransaction');
export const SEND_CONTEXT_SCHEMA = ref('SendContext');
export const WALLET_CHANGE_SCHEMA = ref('WalletChange');
export const DELETED_WALLET_SCHEMA = ref('DeletedWallet');
export const BUSINESS_SETUP_SCHEMA = ref('BusinessSetup');
export const RECOVERY_PHRASE_SCHEMA = ref('RecoveryPhrase');

/** The wallet change object (spec §2; decision 0041). */
const WALLET_CHANGE_PROPERTIES = {
  kind: kind('wallet_change'),
  id: { ...str, description: 'wcr_…' },
  change: { type: 'string', enum: ['delete'] },
  status: { type: 'string', enum: ['pending', 'canceled', 'applied'], description: '`pending` until `effective_at`; `canceled` by the e-mailed link or the dashboard; `applied` once the wallet was deleted.' },
  wallet_id: str,
  effective_at: { ...timestamp, description: 'When the deletion takes effect (24 hours after it was asked for, in the business’s time); the wallet keeps receiving until then.' },
  canceled_at: nullable(timestamp),
  created_at: timestamp,
} satisfies Record<string, SchemaObject>;

const network: SchemaObject = { type: 'string', enum: [...NETWORK_IDS] };

const WALLET_PROPERTIES = {
  kind: kind('wallet'),
  id: { ...str, description: 'wal_…' },
  type: { type: 'string', enum: ['created', 'imported', 'external'], description: '`external` wallets keep their own keys (no recovery phrase here).' } as SchemaObject,
  networks: {
    type: 'array',
    description: 'Every network: whether the business receives there (its wallet derives a fresh address per checkout and, for a live business, this service watches the network), and why not: the words its checkouts answer 409 not_accepting with.',
    items: object({ network, assets: { type: 'array', items: { type: 'string', enum: [...ASSET_CODES] } }, receiving: { type: 'boolean' }, reason: nullable(str) }),
  } as SchemaObject,
  keys: object(
    { evm_xpub: nullable(str), bitcoin_xpub: nullable(str), solana_address: nullable(str), solana_derived: { type: 'boolean' } },
    { description: 'The public keys receiving addresses are derived from.' },
  ),
  addresses: object(
    {
      total: { ...int, description: 'Addresses checkouts reserved in this wallet.' },
      recent: {
        type: 'array',
        description: 'The latest (at most 20), newest first.',
        items: object({ address: str, network, index: int, checkout_id: str, payment_id: str, reserved_at: timestamp }),
      },
    },
    { description: 'Addresses in use.' },
  ),
  pending_change: { ...object(WALLET_CHANGE_PROPERTIES), nullable: true, description: 'The deletion waiting for its 24-hour hold (DELETE /wallet); null while there is none.' },
  created_at: timestamp,
};

export const WALLET_COMPONENTS: Record<string, SchemaObject> = {
  WalletChange: object(WALLET_CHANGE_PROPERTIES, { description: 'A change of the wallet waiting for its hold (spec §2 `wallet_change`): today a deletion.' }),
  DeletedWallet: deletedResource('wallet', 'The wallet, deleted at once (a business still in setup that has received nothing).', { ...str, description: 'wal_…' }),
  RecoveryPhrase: resource('recovery_phrase', 'The recovery phrase of a wallet created or imported in the service (decision 0041).', {
    wallet_id: { ...str, description: 'wal_…' },
    recovery_phrase: { ...str, description: 'The BIP-39 English phrase the wallet was created with (24 words) or imported from. Keep it offline: whoever holds it holds the funds.' },
  }),
  BusinessSetup: resource('business_setup', 'Whether the business is still in setup (decision 0041). While in setup, DELETE /wallet removes the wallet at once if nothing was received.', {
    business_id: str,
    status: { type: 'string', enum: ['in_setup', 'finished'], description: '`in_setup` until POST /businesses/{id}/finish-setup.' },
    requirements: { type: 'array', items: { type: 'string', enum: ['wallet'] }, description: 'What finishing setup still needs (`wallet`: create, import or connect one with POST /wallet).' },
    finished_at: nullable(timestamp),
  }),
  Wallet: object(WALLET_PROPERTIES, { description: "The business's wallet: where checkouts reserve fresh receiving addresses." }),
  WalletWithRecoveryPhrase: object(
    { ...propertiesOf('Wallet', WALLET_PROPERTIES), recovery_phrase: { ...nullable(str), description: 'A `created` wallet: its 24-word recovery phrase, shown this once. Null for imported and external wallets.' } },
    { description: 'The wallet just created (POST /wallet).' },
  ),
  WalletTransaction: resource('wallet_transaction', 'A send from the wallet (spec §2).', {
    id: { ...str, description: 'wtx_…' },
    direction: { type: 'string', enum: ['out'] },
    status: { type: 'string', enum: ['pending', 'confirmed', 'failed'] },
    origin: { type: 'string', enum: ['signed', 'external'], description: '`signed`: checked and relayed by the service; `external`: an unverified record of a send made in another app (reserves and deducts nothing).' },
    asset: { type: 'string', enum: [...ASSET_CODES] },
    network,
    amount: { ...str, description: 'Decimal in the coin.' },
    value_usd: { ...nullable(int), description: 'USD cents; zero for an external record until the chain proves it; null while unknown.' },
    network_fee_usd: { ...nullable(int), description: 'USD cents: for a send, the most its signed transaction can cost until it is confirmed, then what the chain charged; always zero for external records. Priced in the network\'s fee coin (ETH, SOL, POL on Polygon); null only while no fresh exchange rate could be had for a live business when the send was taken, as for value_usd.' },
    address: { ...nullable(str), description: 'The wallet address the send draws on (as from_address).' },
    from_address: nullable(str),
    to_address: str,
    tx_hash: { ...str, description: 'Hex hashes in lower case; a Solana signature in base58.' },
    explorer_url: str,
    payment_id: nullable(str),
    speed: { type: 'string', enum: ['slow', 'standard', 'fast'] },
    note: nullable(str),
    failure_reason: nullable(str),
    created_at: timestamp,
    confirmed_at: nullable(timestamp),
    failed_at: nullable(timestamp),
  }),
  SendContext: resource('send_context', 'What a dashboard needs to build and sign a send (decision 0040).', {
    network,
    asset: { type: 'string', enum: [...ASSET_CODES] },
    from_address: str,
    chain_id: nullable(int),
    nonce: { ...nullable(int), description: 'EVM: the next nonce of from_address, pending transactions included.' },
    fees: {
      ...nullable({ type: 'object' }),
      description: 'EVM: `slow`, `standard`, `fast`, each with `max_fee_per_gas` and `max_priority_fee_per_gas` (wei, decimal strings).',
    },
    available: object(
      { asset: str, fee_coin: nullable(str), fee_coin_asset: nullable(str) },
      { description: 'What the service lets the address send (received minus held by sends), and its fee coin; decimals in the coin.' },
    ),
  }),
};
