import { defaultRegistry } from '@lib/chains';
import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import { formatCryptoAmount } from '@lib/money';
import type { Projector } from '@lib/projections';
import { asWalletTransactionEvent } from './events';

/** When an event happened: the command's clock (metadata `occurredAt`, an injected test clock) or the store's. */
function happenedAt(event: Pick<RecordedEvent, 'metadata' | 'recordedAt'>): string {
  const occurred = (event.metadata as Record<string, unknown> | undefined)?.occurredAt;
  if (typeof occurred === 'string' && !Number.isNaN(Date.parse(occurred))) return new Date(occurred).toISOString();
  return new Date(event.recordedAt).toISOString();
}

/** USD cents of `units` of a stablecoin at par (USDC, USDT); null for a coin whose price moves. */
export function parValueUsd(asset: string, units: bigint): number | null {
  if (asset !== 'USDC' && asset !== 'USDT') return null;
  const decimals = defaultRegistry.decimals(asset);
  // cents: units / 10^(decimals-2), rounded half up
  const scale = 10n ** BigInt(decimals - 2);
  return Number((units + scale / 2n) / scale);
}

/**
 * The `wallet_transactions` projection (decision 0040; deterministic: event data and times only):
 * every send of every wallet as GET /wallet/transactions shows it; and `wallet_send_reservations`,
 * the holds of live sends not yet recorded nor released (what a crash between the hold and the
 * record leaves, for the worker to settle against the node).
 */
export const walletTransactionsProjector: Projector = {
  name: 'wallet_transactions',
  tables: ['wallet_transactions', 'wallet_send_reservations'],
  schema: `
    CREATE TABLE IF NOT EXISTS wallet_transactions (
      id              text        PRIMARY KEY,
      business_id     text        NOT NULL,
      wallet_id       text        NOT NULL,
      mode            text        NOT NULL,
      origin          text        NOT NULL,
      status          text        NOT NULL,
      asset           text        NOT NULL,
      network         text        NOT NULL,
      units           text        NOT NULL,
      amount          text        NOT NULL,
      from_address    text,
      to_address      text        NOT NULL,
      tx_hash         text        NOT NULL,
      speed           text        NOT NULL,
      note            text,
      value_usd       bigint,
      network_fee_usd bigint,
      fee_units       text,
      failure_reason  text,
      created_at      timestamptz NOT NULL,
      confirmed_at    timestamptz,
      failed_at       timestamptz
    );
    CREATE INDEX IF NOT EXISTS wallet_transactions_business_created ON wallet_transactions (business_id, created_at DESC, id DESC);
    CREATE INDEX IF NOT EXISTS wallet_transactions_hash ON wallet_transactions (network, tx_hash);
    CREATE TABLE IF NOT EXISTS wallet_send_reservations (
      id          text        PRIMARY KEY,
      wallet_id   text        NOT NULL,
      network     text        NOT NULL,
      tx_hash     text        NOT NULL,
      data        text        NOT NULL,
      reserved_at timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS wallet_send_reservations_reserved ON wallet_send_reservations (reserved_at, id);
  `,
  async handle(events: RecordedEvent[], tx: Sql): Promise<void> {
    for (const event of events) {
      const e = asWalletTransactionEvent(event);
      if (e === null) continue;
      const at = happenedAt(event);
      switch (e.type) {
        case 'WalletSendReserved':
          await tx.query(
            `INSERT INTO wallet_send_reservations (id, wallet_id, network, tx_hash, data, reserved_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
            [e.data.wallet_transaction_id, e.data.wallet_id, e.data.network, e.data.tx_hash, JSON.stringify(e.data), at],
          );
          break;
        case 'WalletSendReleased':
          await tx.query(`DELETE FROM wallet_send_reservations WHERE id = $1`, [e.data.wallet_transaction_id]);
          break;
        case 'WalletTransactionRecorded': {
          const d = e.data;
          await tx.query(`DELETE FROM wallet_send_reservations WHERE id = $1`, [d.wallet_transaction_id]);
          const units = BigInt(d.units);
          const amount = formatCryptoAmount(units, defaultRegistry.decimals(d.asset));
          // external records: zero until the chain proves them (§2; issue 19 A10: their fee is always zero)
          const value = d.kind === 'external' ? 0 : (d.value_usd ?? parValueUsd(d.asset, units));
          const fee = d.kind === 'external' ? 0 : null;
          await tx.query(
            `INSERT INTO wallet_transactions (id, business_id, wallet_id, mode, origin, status, asset, network, units, amount, from_address, to_address, tx_hash, speed, note, value_usd, network_fee_usd, created_at)
             VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) ON CONFLICT (id) DO NOTHING`,
            [d.wallet_transaction_id, d.business_id, d.wallet_id, d.mode, d.kind, d.asset, d.network, d.units, amount, d.from_address, d.to_address, d.tx_hash, d.speed, d.note, value, fee, at],
          );
          break;
        }
        case 'WalletTransactionConfirmed': {
          const d = e.data;
          // an external record proved by the chain takes its value (the rate at confirmation; stablecoins at par); its fee stays zero.
          // A signed send's fee in USD when the rate was had.
          await tx.query(
            `UPDATE wallet_transactions SET status = 'confirmed', confirmed_at = $2, fee_units = $3,
               value_usd = CASE WHEN origin = 'external' THEN COALESCE($4::bigint, CASE WHEN asset IN ('USDC', 'USDT') THEN ROUND(units::numeric / 10000)::bigint ELSE value_usd END) ELSE value_usd END,
               network_fee_usd = CASE WHEN origin = 'external' THEN network_fee_usd ELSE COALESCE($5::bigint, network_fee_usd) END
             WHERE id = $1 AND status = 'pending'`,
            [d.wallet_transaction_id, at, d.fee_units, d.value_usd ?? null, d.network_fee_usd ?? null],
          );
          break;
        }
        case 'WalletTransactionFailed':
          await tx.query(`UPDATE wallet_transactions SET status = 'failed', failed_at = $2, failure_reason = $3 WHERE id = $1 AND status = 'pending'`, [e.data.wallet_transaction_id, at, e.data.reason]);
          break;
      }
    }
  },
};
