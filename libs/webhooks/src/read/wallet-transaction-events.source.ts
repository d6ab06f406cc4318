import { defaultRegistry } from '@lib/chains';
import type { RecordedEvent } from '@lib/eventstore';
import { formatCryptoAmount } from '@lib/money';
import { eventTime } from '@lib/payments';
import { WALLET_TX_STREAM, WalletTransactionView, asWalletTransactionEvent, parValueUsd } from '@lib/wallets';
import { ApiEventDraft, ApiEventSource } from './event-source';

/** A wallet transaction as the source folds it: the object as GET /wallet/transactions/{id} shows it, its business and mode. */
export interface WalletTransactionEventView {
  object: WalletTransactionView;
  business_id: string;
  mode: 'live' | 'test';
  /** Smallest units of the amount. */
  units: string;
}

/**
 * API events of wallet sends (decision 0040): `wallet_transaction.confirmed` when the network
 * confirms a send (or, on a simulated business, its timer does), `wallet_transaction.failed` when
 * it never lands or an external record does not match the chain. `data` is the wallet transaction
 * as GET /wallet/transactions/{id} returns it. A send's held funds (WalletSendReserved,
 * WalletSendReleased) are no event: nothing was sent yet.
 */
export const walletTransactionEventSource: ApiEventSource<WalletTransactionEventView> = {
  name: 'wallet_transaction',
  types: ['wallet_transaction.confirmed', 'wallet_transaction.failed'],
  accepts: (event) => WALLET_TX_STREAM.owns(event.stream),
  viewKey(event: RecordedEvent): string | null {
    const id = (event.data as { wallet_transaction_id?: string }).wallet_transaction_id;
    return typeof id === 'string' ? `wallet_transaction-${id}` : null;
  },
  reduce(view: WalletTransactionEventView | null, event: RecordedEvent): WalletTransactionEventView | null {
    const e = asWalletTransactionEvent(event);
    if (e === null) return view;
    const at = eventTime(event);
    switch (e.type) {
      case 'WalletTransactionRecorded': {
        const d = e.data;
        const units = BigInt(d.units);
        const object: WalletTransactionView = {
          kind: 'wallet_transaction',
          id: d.wallet_transaction_id,
          direction: 'out',
          status: 'pending',
          origin: d.kind,
          asset: d.asset,
          network: d.network,
          amount: formatCryptoAmount(units, defaultRegistry.decimals(d.asset)),
          value_usd: d.kind === 'external' ? 0 : parValueUsd(d.asset, units),
          network_fee_usd: d.kind === 'external' ? 0 : null,
          address: d.from_address,
          from_address: d.from_address,
          to_address: d.to_address,
          tx_hash: d.tx_hash,
          explorer_url: defaultRegistry.explorerTxUrl(d.network, d.tx_hash),
          payment_id: null,
          speed: d.speed,
          note: d.note,
          failure_reason: null,
          created_at: at,
          confirmed_at: null,
          failed_at: null,
        };
        return { object, business_id: d.business_id, mode: d.mode, units: d.units };
      }
      case 'WalletTransactionConfirmed': {
        if (!view || view.object.status !== 'pending') return view;
        const o = view.object;
        // an external record proved by the chain takes its value (stablecoins at par), as the read model does
        const value = o.origin === 'external' ? (parValueUsd(o.asset, BigInt(view.units)) ?? 0) : o.value_usd;
        return { ...view, object: { ...o, status: 'confirmed', confirmed_at: at, value_usd: value } };
      }
      case 'WalletTransactionFailed':
        if (!view || view.object.status !== 'pending') return view;
        return { ...view, object: { ...view.object, status: 'failed', failed_at: at, failure_reason: e.data.reason } };
      default:
        return view;
    }
  },
  map(event: RecordedEvent, { before, after }): ApiEventDraft[] {
    if (!after || before?.object.status === after.object.status) return [];
    const status = after.object.status;
    if (status !== 'confirmed' && status !== 'failed') return [];
    return [
      {
        type: `wallet_transaction.${status}`,
        subject: { kind: 'wallet_transaction', id: after.object.id },
        data: after.object as unknown as Record<string, unknown>,
        business_id: after.business_id,
        mode: after.mode,
        created_at: (status === 'confirmed' ? after.object.confirmed_at : after.object.failed_at)!,
      },
    ];
  },
};
