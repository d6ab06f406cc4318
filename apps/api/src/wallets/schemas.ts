import type { SchemaObject } from '@nestjs/swagger';
import { ASSET_CODES, NETWORK_IDS } from '@lib/chains';
import { int, nullable, object, ref, str, timestamp } from '../platform/resource-schemas';

/** OpenAPI schemas of the wallet routes (decision 0024), as WalletView renders them. */
export const WALLET_SCHEMA = ref('Wallet');
export const CREATED_WALLET_SCHEMA = ref('WalletWithRecoveryPhrase');

const network: SchemaObject = { type: 'string', enum: [...NETWORK_IDS] };

const WALLET_PROPERTIES = {
  kind: { type: 'string', enum: ['wallet'] } as SchemaObject,
  id: { ...str, description: 'wal_…' },
  type: { type: 'string', enum: ['created', 'imported', 'external'], description: '`external` wallets keep their own keys (no recovery phrase here).' } as SchemaObject,
  networks: {
    type: 'array',
    description: 'Every network: whether the wallet receives there (a fresh address per checkout), and why not.',
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
  pending_change: { ...nullable({ type: 'object' }), description: 'A wallet change waiting for its hold (§3); null while there is none.' },
  created_at: timestamp,
};

export const WALLET_COMPONENTS: Record<string, SchemaObject> = {
  Wallet: object(WALLET_PROPERTIES, { description: "The business's wallet: where checkouts reserve fresh receiving addresses." }),
  WalletWithRecoveryPhrase: object(
    { ...WALLET_PROPERTIES, recovery_phrase: { ...nullable(str), description: 'A `created` wallet: its 24-word recovery phrase, shown this once. Null for imported and external wallets.' } },
    { description: 'The wallet just created (POST /wallet).' },
  ),
};
