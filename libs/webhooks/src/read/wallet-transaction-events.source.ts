import type { RecordedEvent } from '@lib/eventstore';
import { WALLET_TX_STREAM, WalletTransactionState, WalletTransactionView, evolveWalletTransaction, walletTransactionView } from '@lib/wallets';
import { ApiEventDraft, ApiEventSource } from './event-source';

/**
 * API events of wallet sends (decision 0040): `wallet_transaction.confirmed` when the network
 * confirms a send (or, on a simulated business, its timer does), `wallet_transaction.failed` when
 * it never lands or an external record does not match the chain. `data` is the wallet transaction
 * as GET /wallet/transactions/{id} returns it at that event: the view is the `wallet_transactions`
 * projection's row, folded by the same evolveWalletTransaction (the value kept on the record, the
 * fee and an external record's value kept on the confirmation) and rendered by the same
 * walletTransactionView. A send's held funds (WalletSendReserved, WalletSendReleased) are no
 * event: nothing was sent yet.
 */
export const walletTransactionEventSource: ApiEventSource<WalletTransactionState> = {
  name: 'wallet_transaction',
  types: ['wallet_transaction.confirmed', 'wallet_transaction.failed'],
  accepts: (event) => WALLET_TX_STREAM.owns(event.stream),
  viewKey(event: RecordedEvent): string | null {
    const id = (event.data as { wallet_transaction_id?: string }).wallet_transaction_id;
    return typeof id === 'string' ? `wallet_transaction-${id}` : null;
  },
  reduce: (view: WalletTransactionState | null, event: RecordedEvent) => evolveWalletTransaction(storedState(view), event),
  map(event: RecordedEvent, { before, after }): ApiEventDraft[] {
    if (!after || before?.status === after.status) return [];
    const status = after.status;
    if (status !== 'confirmed' && status !== 'failed') return [];
    return [
      {
        type: `wallet_transaction.${status}`,
        subject: { kind: 'wallet_transaction', id: after.id },
        data: walletTransactionView(after) as unknown as Record<string, unknown>,
        business_id: after.business_id,
        mode: after.mode,
        created_at: (status === 'confirmed' ? after.confirmed_at : after.failed_at)!,
      },
    ];
  },
};

/** The view as stored by the first version of this source (the object, business, mode and units), for sends pending across the upgrade. */
interface FirstVersionView {
  object: WalletTransactionView;
  business_id: string;
  mode: 'live' | 'test';
  units: string;
}

/** A stored view as a state: views stored before the source shared the projection's fold are read as the state they showed. */
function storedState(view: WalletTransactionState | FirstVersionView | null): WalletTransactionState | null {
  if (view === null || !('object' in view)) return view;
  const o = view.object;
  return {
    id: o.id,
    business_id: view.business_id,
    wallet_id: '', // not kept then; the object does not show it
    mode: view.mode,
    origin: o.origin,
    status: o.status,
    asset: o.asset,
    network: o.network as WalletTransactionState['network'],
    units: view.units,
    amount: o.amount,
    from_address: o.from_address,
    to_address: o.to_address,
    tx_hash: o.tx_hash,
    speed: o.speed,
    note: o.note,
    value_usd: o.value_usd,
    network_fee_usd: o.network_fee_usd,
    fee_units: null,
    failure_reason: o.failure_reason,
    created_at: o.created_at,
    confirmed_at: o.confirmed_at,
    failed_at: o.failed_at,
  };
}
