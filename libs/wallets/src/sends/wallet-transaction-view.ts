import { NetworkId, defaultRegistry } from '@lib/chains';
import type { RecordedEvent } from '@lib/eventstore';
import { formatCryptoAmount } from '@lib/money';
import { asWalletTransactionEvent } from './events';

/**
 * A wallet transaction on the read side (decision 0040), one fold for everything that shows it:
 * the `wallet_transactions` projection (GET /wallet/transactions, its rows) and the
 * `wallet_transaction.*` API events (the events projection's source, its views) both fold a
 * send's events with `evolveWalletTransaction` and render the object with
 * `walletTransactionView`, so an event's `data` is the object the endpoint returns at that event.
 */

/** A wallet transaction as the API shows it (spec §2, decision 0040). */
export interface WalletTransactionView {
  kind: 'wallet_transaction';
  id: string;
  direction: 'out';
  status: 'pending' | 'confirmed' | 'failed';
  /** `signed`: a transaction the service checked and relayed; `external`: an unverified record of a send made in another app. */
  origin: 'signed' | 'external';
  asset: string;
  network: string;
  amount: string;
  /** USD cents at the service's rate of the send's time (an external record: of the time the chain proved it, zero until then); null when no rate was had. */
  value_usd: number | null;
  /** USD cents: the most the signed transaction can cost until confirmed, then what the chain charged; zero for external records; priced in the fee coin (POL too); null only without a fresh rate (decision 0040, addendum of 2026-11-29). */
  network_fee_usd: number | null;
  /** The wallet's address the send draws on (= from_address; null for an external record until the chain shows it). */
  address: string | null;
  from_address: string | null;
  to_address: string;
  tx_hash: string;
  explorer_url: string;
  payment_id: null;
  speed: string;
  note: string | null;
  failure_reason: string | null;
  created_at: string;
  confirmed_at: string | null;
  failed_at: string | null;
}

/** What walletTransactionView renders: a `wallet_transactions` row as the queries select it, or a folded state. */
export interface WalletTransactionRow {
  id: string;
  business_id: string;
  wallet_id: string;
  mode: string;
  origin: 'signed' | 'external';
  status: 'pending' | 'confirmed' | 'failed';
  asset: string;
  network: NetworkId;
  amount: string;
  from_address: string | null;
  to_address: string;
  tx_hash: string;
  speed: string;
  note: string | null;
  value_usd: string | number | null;
  network_fee_usd: string | number | null;
  failure_reason: string | null;
  created_at: Date | string;
  confirmed_at: Date | string | null;
  failed_at: Date | string | null;
}

/** A wallet transaction as the read side folds it: every column of its `wallet_transactions` row, as JSON values (times ISO). */
export interface WalletTransactionState extends WalletTransactionRow {
  mode: 'live' | 'test';
  /** Smallest units of the amount. */
  units: string;
  value_usd: number | null;
  network_fee_usd: number | null;
  /** The fee the chain charged, in the network coin's smallest units, once confirmed (when known). */
  fee_units: string | null;
  created_at: string;
  confirmed_at: string | null;
  failed_at: string | null;
}

/** The columns of a WalletTransactionState, in the table's order. */
export const WALLET_TRANSACTION_COLUMNS = [
  'id',
  'business_id',
  'wallet_id',
  'mode',
  'origin',
  'status',
  'asset',
  'network',
  'units',
  'amount',
  'from_address',
  'to_address',
  'tx_hash',
  'speed',
  'note',
  'value_usd',
  'network_fee_usd',
  'fee_units',
  'failure_reason',
  'created_at',
  'confirmed_at',
  'failed_at',
] as const satisfies readonly (keyof WalletTransactionState)[];

const iso = (v: Date | string | null): string | null => (v === null ? null : new Date(v).toISOString());
const cents = (v: string | number | null): number | null => (v === null ? null : Number(v));

/** The wallet transaction object of a row or a folded state. */
export function walletTransactionView(r: WalletTransactionRow): WalletTransactionView {
  return {
    kind: 'wallet_transaction',
    id: r.id,
    direction: 'out',
    status: r.status,
    origin: r.origin,
    asset: r.asset,
    network: r.network,
    amount: r.amount,
    value_usd: cents(r.value_usd),
    network_fee_usd: cents(r.network_fee_usd),
    address: r.from_address,
    from_address: r.from_address,
    to_address: r.to_address,
    tx_hash: r.tx_hash,
    explorer_url: defaultRegistry.explorerTxUrl(r.network, r.tx_hash),
    payment_id: null,
    speed: r.speed,
    note: r.note,
    failure_reason: r.failure_reason,
    created_at: iso(r.created_at)!,
    confirmed_at: iso(r.confirmed_at),
    failed_at: iso(r.failed_at),
  };
}

/** A state read back from its row (times and bigint columns as the driver gives them). */
export function walletTransactionStateOfRow(row: Record<string, unknown>): WalletTransactionState {
  const r = row as unknown as WalletTransactionRow & { units: string; fee_units: string | null };
  return {
    ...(Object.fromEntries(WALLET_TRANSACTION_COLUMNS.map((c) => [c, row[c] ?? null])) as unknown as WalletTransactionState),
    mode: r.mode === 'live' ? 'live' : 'test',
    value_usd: cents(r.value_usd),
    network_fee_usd: cents(r.network_fee_usd),
    created_at: iso(r.created_at)!,
    confirmed_at: iso(r.confirmed_at),
    failed_at: iso(r.failed_at),
  };
}

/** When an event happened: the command's clock (metadata `occurredAt`, an injected test clock) or the store's. */
export function happenedAt(event: Pick<RecordedEvent, 'metadata' | 'recordedAt'>): string {
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
 * A wallet transaction after one event of its wallet's stream (decision 0040; deterministic:
 * event data and times only). Recorded: pending, valued at the rates kept on the event (the amount,
 * stablecoins at par when no rate was had; a signed send's fee as its transaction sets it, null
 * when not kept); an external record is zero until the chain proves it, its fee always zero; a
 * second record of the id changes nothing. Confirmed and failed apply to a pending one only:
 * confirmed keeps the fee the chain charged (`fee_units`, `network_fee_usd` at the rate of that
 * time for a signed send) and gives an external record its value (the rate of that time,
 * stablecoins at par). Holds and releases are no wallet transaction.
 */
export function evolveWalletTransaction(state: WalletTransactionState | null, event: RecordedEvent): WalletTransactionState | null {
  const e = asWalletTransactionEvent(event);
  if (e === null) return state;
  const at = happenedAt(event);
  switch (e.type) {
    case 'WalletTransactionRecorded': {
      if (state !== null) return state;
      const d = e.data;
      const units = BigInt(d.units);
      const external = d.kind === 'external';
      return {
        id: d.wallet_transaction_id,
        business_id: d.business_id,
        wallet_id: d.wallet_id,
        mode: d.mode,
        origin: d.kind,
        status: 'pending',
        asset: d.asset,
        network: d.network,
        units: d.units,
        amount: formatCryptoAmount(units, defaultRegistry.decimals(d.asset)),
        from_address: d.from_address,
        to_address: d.to_address,
        tx_hash: d.tx_hash,
        speed: d.speed,
        note: d.note,
        value_usd: external ? 0 : (d.value_usd ?? parValueUsd(d.asset, units)),
        network_fee_usd: external ? 0 : (d.network_fee_usd ?? null),
        fee_units: null,
        failure_reason: null,
        created_at: at,
        confirmed_at: null,
        failed_at: null,
      };
    }
    case 'WalletTransactionConfirmed': {
      if (state === null || state.status !== 'pending') return state;
      const d = e.data;
      const external = state.origin === 'external';
      return {
        ...state,
        status: 'confirmed',
        confirmed_at: at,
        fee_units: d.fee_units ?? null,
        value_usd: external ? (d.value_usd ?? parValueUsd(state.asset, BigInt(state.units)) ?? state.value_usd) : state.value_usd,
        network_fee_usd: external ? state.network_fee_usd : (d.network_fee_usd ?? state.network_fee_usd),
      };
    }
    case 'WalletTransactionFailed':
      if (state === null || state.status !== 'pending') return state;
      // a send failed on the chain keeps the fee it was charged (0040 addendum, 2026-11-28, later)
      return {
        ...state,
        status: 'failed',
        failed_at: at,
        failure_reason: e.data.reason,
        ...(e.data.fee_units != null ? { fee_units: e.data.fee_units } : {}),
        ...(e.data.network_fee_usd != null ? { network_fee_usd: e.data.network_fee_usd } : {}),
      };
    default:
      return state;
  }
}
