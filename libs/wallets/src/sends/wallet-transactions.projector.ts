import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import { asWalletTransactionEvent } from './events';
import { WALLET_TRANSACTION_COLUMNS, WalletTransactionState, evolveWalletTransaction, happenedAt, walletTransactionStateOfRow } from './wallet-transaction-view';

export { parValueUsd } from './wallet-transaction-view';

/**
 * The `wallet_transactions` projection (decision 0040; deterministic: event data and times only):
 * every send of every wallet as GET /wallet/transactions shows it, folded by
 * evolveWalletTransaction (wallet-transaction-view.ts, the fold of the API events' source too); and `wallet_send_reservations`,
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
    // the rows this batch changes, read once, folded in log order by the API events' fold too, written once
    const ids = new Set<string>();
    for (const event of events) {
      const e = asWalletTransactionEvent(event);
      if (e !== null && e.type !== 'WalletSendReserved' && e.type !== 'WalletSendReleased') ids.add(e.data.wallet_transaction_id);
    }
    const states = new Map<string, { state: WalletTransactionState | null; changed: boolean }>();
    if (ids.size > 0) {
      const { rows } = await tx.query<Record<string, unknown>>(`SELECT ${WALLET_TRANSACTION_COLUMNS.join(', ')} FROM wallet_transactions WHERE id = ANY($1::text[])`, [[...ids]]);
      for (const row of rows) states.set(row.id as string, { state: walletTransactionStateOfRow(row), changed: false });
    }
    for (const event of events) {
      const e = asWalletTransactionEvent(event);
      if (e === null) continue;
      switch (e.type) {
        case 'WalletSendReserved':
          await tx.query(
            `INSERT INTO wallet_send_reservations (id, wallet_id, network, tx_hash, data, reserved_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
            [e.data.wallet_transaction_id, e.data.wallet_id, e.data.network, e.data.tx_hash, JSON.stringify(e.data), happenedAt(event)],
          );
          continue;
        case 'WalletSendReleased':
          await tx.query(`DELETE FROM wallet_send_reservations WHERE id = $1`, [e.data.wallet_transaction_id]);
          continue;
        case 'WalletTransactionRecorded':
          await tx.query(`DELETE FROM wallet_send_reservations WHERE id = $1`, [e.data.wallet_transaction_id]);
          break;
      }
      const id = e.data.wallet_transaction_id;
      const before = states.get(id)?.state ?? null;
      const after = evolveWalletTransaction(before, event);
      if (after !== before) states.set(id, { state: after, changed: true });
    }
    const changed = [...states.values()].flatMap((s) => (s.changed && s.state !== null ? [s.state] : []));
    if (changed.length > 0) {
      const columns = WALLET_TRANSACTION_COLUMNS.join(', ');
      await tx.query(
        `INSERT INTO wallet_transactions (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::wallet_transactions, $1::jsonb)
         ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, value_usd = EXCLUDED.value_usd, network_fee_usd = EXCLUDED.network_fee_usd,
           fee_units = EXCLUDED.fee_units, failure_reason = EXCLUDED.failure_reason, confirmed_at = EXCLUDED.confirmed_at, failed_at = EXCLUDED.failed_at`,
        [JSON.stringify(changed)],
      );
    }
  },
};
