import { Decider, DomainRefusal, decideBy } from '@lib/domain';
import { AssetCode, NetworkId, confirmationsRequired } from '@lib/chains';
import { WalletSendFunding, WalletTransactionEvent, WalletTransactionRecordedData, asWalletTransactionEvent } from './events';

/**
 * The sends of one wallet (decision 0040), decided on its `wallet_tx-<wal_id>` stream. A hash is
 * recorded once (409 duplicate_transaction). A signed send of a live business is first reserved
 * (its amount and its greatest fee held on its sender), then relayed, then recorded — or released
 * when the node refuses it or cannot be reached, so nothing is recorded as sent. Pending and
 * confirmed sends keep their hold, failed ones give it back. The funds a command is given (what
 * the address received, as the service tracks it) are never exceeded: concurrent sends conflict
 * on this stream and are decided again. A live send's chain verdict (confirmed, or failed because
 * it reverted) is taken only once its block is final — the confirmations incoming transfers need
 * on its network (isFinal; decision 0040, addendum of 2026-11-28): until then it stays pending
 * with its hold, so a reorganisation before that leaves nothing to undo.
 */

export type WalletTransactionStatus = 'reserved' | 'released' | 'pending' | 'confirmed' | 'failed';

export interface WalletTransactionRecord {
  data: WalletTransactionRecordedData;
  status: WalletTransactionStatus;
  /** The fee the chain charged, once known (confirmed, or failed on the chain), in the smallest units of the network's coin. */
  feeCharged?: bigint;
}

export interface WalletSendsState {
  /** By wallet transaction id, in recording order. */
  transactions: ReadonlyMap<string, WalletTransactionRecord>;
  /** Held or recorded hashes (lower-case hex, or a Solana signature) → wallet transaction id. */
  hashes: ReadonlyMap<string, string>;
}

/**
 * What the sender's address received as the service tracks it, before this wallet's sends: the
 * asset, and the network coin for the fee. The asset is always checked; the fee coin only when the
 * service tracks it (`feeAsset` null: Polygon's POL, which no checkout receives — the node alone
 * judges the fee; decision 0040, addendum).
 */
export interface SenderFunds {
  /** Smallest units of the asset the address received. */
  asset: bigint;
  /** Smallest units of the network coin the fee payer received (the sender, or the address submitting an EIP-3009 authorization; equal to `asset` when the asset is the coin). Not read when `feeAsset` is null. */
  feeCoin: bigint;
  /** Smallest units of the network coin the funder of a funding transaction received (absent without one). Not read when `feeAsset` is null. */
  funderCoin?: bigint;
  /** The network coin (ETH, SOL), or null when the service does not track it (POL on Polygon): then no fee-coin rule, the asset's still applies. */
  feeAsset: AssetCode | null;
}

/** Hold a signed send's funds while it is relayed. */
export interface ReserveWalletSend {
  type: 'ReserveWalletSend';
  data: WalletTransactionRecordedData;
  /** Null: no balance rule (only for a hold already checked; an untracked fee coin is `feeAsset: null`, never null funds). */
  funds: SenderFunds | null;
  /** `data.funding` as a wallet transaction of its own (`fundingTransaction`), held with the send: see `withFunding`. */
  fundingRecord?: WalletTransactionRecordedData;
}

/** Record a send: a reserved one once relayed, or a new one (a simulated send, an external record) checked here. */
export interface RecordWalletTransaction {
  type: 'RecordWalletTransaction';
  data: WalletTransactionRecordedData;
  /** Null: no balance rule (external records reserve and deduct nothing). */
  funds: SenderFunds | null;
  /** A new send's funding transaction as a wallet transaction of its own, recorded with it (a simulated send): see `withFunding`. */
  fundingRecord?: WalletTransactionRecordedData;
}

export interface ReleaseWalletSend {
  type: 'ReleaseWalletSend';
  walletTransactionId: string;
  reason: string;
}

export interface ConfirmWalletTransaction {
  type: 'ConfirmWalletTransaction';
  walletTransactionId: string;
  feeUnits?: string | null;
  block?: number | null;
  networkFeeUsd?: number | null;
  valueUsd?: number | null;
  /**
   * Blocks (slots on Solana) from the transaction's block to the head, its own included, as the
   * chain was read. A live send confirms only when they make it final (isFinal); a simulated
   * business's send (its timer: no chain) confirms without.
   */
  confirmations?: number | null;
}

export interface FailWalletTransaction {
  type: 'FailWalletTransaction';
  walletTransactionId: string;
  reason: string;
  /** Mined and failed: the fee the chain charged (it stays spent on the fee payer); null or absent when nothing was mined. */
  feeUnits?: string | null;
  networkFeeUsd?: number | null;
  /**
   * A verdict read from a mined block (it reverted): its confirmations, and on a live business the
   * failure is taken only once they make it final, as a confirmation is. Absent for a failure no
   * block decides: a dropped send whose nonce another transaction used, an external record whose
   * transaction is not the one recorded (its content is fixed by its hash), a simulated timer.
   */
  confirmations?: number;
}

export type WalletSendCommand = ReserveWalletSend | RecordWalletTransaction | ReleaseWalletSend | ConfirmWalletTransaction | FailWalletTransaction;

/**
 * Is a transaction `confirmations` deep final on `network`: as deep as the confirmations the
 * service requires of incoming transfers there (the registry's, which the chain watchers and
 * checkouts use: 4 on Ethereum, 32 slots on Solana)? A verdict read from a shallower block can
 * still be undone by a reorganisation.
 */
export function isFinal(network: NetworkId, confirmations: number | null | undefined): boolean {
  return confirmations != null && confirmations >= confirmationsRequired(network);
}

const HOLDS: readonly WalletTransactionStatus[] = ['reserved', 'pending', 'confirmed'];

/**
 * What the held, pending and confirmed signed sends take of `address` on `network`: `asset` units
 * of the asset it sends, and `fee` units of the network coin — the greatest fees it pays (its own
 * sends', and those of EIP-3009 sends it submits for another address), the coin it sends itself,
 * and what its funding transactions give to other addresses, less what funding transactions gave
 * it (a negative `fee` is coin received that way). A funding transaction recorded as a wallet
 * transaction of its own counts through that record (a send from the funder to this address,
 * which the API never takes otherwise: `to_address` is never one of the wallet's); one written
 * before that (no `wallet_transaction_id` on the send's `funding`) through its send, as it did.
 */
export function committed(state: WalletSendsState, network: NetworkId, address: string, asset: AssetCode, feeAsset: AssetCode | null): { asset: bigint; fee: bigint } {
  const is = (a: string | null | undefined) => !!a && a.toLowerCase() === address.toLowerCase();
  let assetUnits = 0n;
  let fee = 0n;
  for (const { data, status, feeCharged } of state.transactions.values()) {
    if (data.kind !== 'signed' || data.network !== network) continue;
    if (!HOLDS.includes(status)) {
      // failed on the chain: nothing sent, but the fee it was charged is spent (0040 addendum, 2026-11-28, later)
      if (status === 'failed' && feeCharged !== undefined && is(data.fee_payer ?? data.from_address)) fee += feeCharged;
      continue;
    }
    // a funding transaction without a record of its own (events written before): held and credited through its send
    const funding = data.funding && data.funding.wallet_transaction_id === undefined ? data.funding : null;
    if (is(data.from_address)) {
      if (data.asset === asset) assetUnits += BigInt(data.units);
      else if (feeAsset !== null && data.asset === feeAsset) fee += BigInt(data.units);
      if (funding) fee -= BigInt(funding.units);
    }
    // what a send of the wallet brings to this address (a funding transaction of its own)
    if (is(data.to_address)) {
      if (data.asset === asset) assetUnits -= BigInt(data.units);
      else if (feeAsset !== null && data.asset === feeAsset) fee -= BigInt(data.units);
    }
    // the greatest fee while it may still be charged; once confirmed, the fee charged (0040 addendum, 2026-11-28, later still)
    if (is(data.fee_payer ?? data.from_address)) fee += status === 'confirmed' && feeCharged !== undefined ? feeCharged : BigInt(data.max_fee_units ?? '0');
    if (funding && is(funding.from)) fee += BigInt(funding.units) + BigInt(funding.max_fee_units);
  }
  return { asset: assetUnits, fee };
}

/** 409 duplicate_transaction, insufficient_funds or insufficient_fee_funds, else nothing. */
function check(state: WalletSendsState, data: WalletTransactionRecordedData, funds: SenderFunds | null): void {
  if (state.hashes.has(data.tx_hash)) throw new DomainRefusal('duplicate_transaction', 'This transaction is already recorded for this wallet.', data.kind === 'external' ? 'tx_hash' : 'signed_transaction');
  if (funds === null || data.kind !== 'signed' || data.from_address === null) return;
  const units = BigInt(data.units);
  const maxFee = BigInt(data.max_fee_units ?? '0');
  const sender = data.from_address;
  const payer = data.fee_payer ?? sender;
  // the coin this send's own funding transaction brings to the sender (a funding the wallet recorded already: its record brings it, in `taken`)
  const credit = BigInt(newFunding(state, data)?.units ?? '0');
  const taken = committed(state, data.network, sender, data.asset, funds.feeAsset);
  const short = (who: string, what: string) => `${who} does not hold ${what} beside its pending sends.`;
  const feeAsset = funds.feeAsset;
  // a funding transaction's funder, on its own coin (only where the service tracks that coin)
  if (feeAsset !== null) checkFunding(state, data, funds, feeAsset, short);
  if (feeAsset !== null && data.asset === feeAsset) {
    // the coin pays for itself: the amount first, then the greatest fee on top
    if (taken.asset + taken.fee + units > funds.asset + credit) throw new DomainRefusal('insufficient_funds', short(sender, `this amount of ${data.asset}`), 'amount');
    if (taken.asset + taken.fee + units + maxFee > funds.asset + credit) throw new DomainRefusal('insufficient_fee_funds', short(sender, `the ${feeAsset} this transaction's fee can cost`), 'signed_transaction');
    return;
  }
  // the asset against what the address received, whether or not the service tracks the fee coin
  if (taken.asset + units > funds.asset) throw new DomainRefusal('insufficient_funds', short(sender, `this amount of ${data.asset}`), 'amount');
  // a fee coin the service never receives (POL): no fee-coin rule, the node judges the fee (decision 0040, addendum)
  if (feeAsset === null) return;
  const takenByPayer = payer === sender ? taken.fee : committed(state, data.network, payer, data.asset, feeAsset).fee;
  if (takenByPayer + maxFee > funds.feeCoin + credit) throw new DomainRefusal('insufficient_fee_funds', short(payer, `the ${feeAsset} this transaction's fee can cost`), 'signed_transaction');
}

/** 409 insufficient_fee_funds on `funding_transaction` when the funder lacks the coin its funding transaction sends and its fee. */
function checkFunding(state: WalletSendsState, data: WalletTransactionRecordedData, funds: SenderFunds, feeAsset: AssetCode, short: (who: string, what: string) => string): void {
  const funder = newFunding(state, data);
  if (funder === null) return;
  const takenByFunder = committed(state, data.network, funder.from, data.asset, feeAsset).fee;
  if (takenByFunder + BigInt(funder.units) + BigInt(funder.max_fee_units) > (funds.funderCoin ?? 0n)) {
    throw new DomainRefusal('insufficient_fee_funds', short(funder.from, `the ${feeAsset} the funding transaction sends and its fee`), 'funding_transaction');
  }
}

/** The send's funding transaction when it is new here (its coin and fee checked on the funder, credited to the sender by this check); null without one, or when the wallet recorded it already: its record holds them. */
function newFunding(state: WalletSendsState, data: WalletTransactionRecordedData): WalletSendFunding | null {
  const funding = data.funding ?? null;
  return funding !== null && (funding.wallet_transaction_id === undefined || !state.transactions.has(funding.wallet_transaction_id)) ? funding : null;
}

/**
 * A send's funding transaction as a wallet transaction of its own (decision 0040, addendum
 * 2026-11-28): `coin` (the network's) from the funder to the sender, its greatest fee held on the
 * funder, its raw bytes kept (a retry relays them, the receipt poll reads them), settled by its own
 * receipt like any send. `usd`: its amount and fee at the service's rates.
 */
export function fundingTransaction(send: WalletTransactionRecordedData, walletTransactionId: string, coin: AssetCode, usd: { value_usd: number | null; network_fee_usd: number | null }): WalletTransactionRecordedData {
  const funding = send.funding;
  if (!funding || send.from_address === null) throw new Error(`wallet transaction ${send.wallet_transaction_id}: no funding transaction`);
  return {
    wallet_transaction_id: walletTransactionId,
    wallet_id: send.wallet_id,
    business_id: send.business_id,
    mode: send.mode,
    kind: 'signed',
    asset: coin,
    network: send.network,
    units: funding.units,
    from_address: funding.from,
    to_address: send.from_address,
    tx_hash: funding.tx_hash,
    speed: send.speed,
    note: null,
    max_fee_units: funding.max_fee_units,
    raw: funding.raw,
    funding_of: send.wallet_transaction_id,
    value_usd: usd.value_usd,
    network_fee_usd: usd.network_fee_usd,
  };
}

/**
 * A send whose funding transaction comes with a record of its own (`fundingRecord`): the send names
 * the record (`funding.wallet_transaction_id`) and the record is taken with it — unless the wallet holds
 * the funding's hash already (a retry after the funding was relayed and the send refused or
 * unreachable; two sends leaning on one funding): then the send names that record and no other is
 * taken (the funding is never held or credited twice). A hash held by anything but this funding is
 * 409 duplicate_transaction on `funding_transaction`.
 */
function withFunding(state: WalletSendsState, data: WalletTransactionRecordedData, fundingRecord: WalletTransactionRecordedData | undefined): { send: WalletTransactionRecordedData; funding: WalletTransactionRecordedData | null } {
  if (!data.funding || fundingRecord === undefined) return { send: data, funding: null };
  if (fundingRecord.tx_hash !== data.funding.tx_hash || fundingRecord.funding_of !== data.wallet_transaction_id) throw new Error(`wallet transaction ${data.wallet_transaction_id}: a funding record of another transaction`);
  const heldId = state.hashes.get(data.funding.tx_hash);
  if (heldId === undefined) return { send: { ...data, funding: { ...data.funding, wallet_transaction_id: fundingRecord.wallet_transaction_id } }, funding: fundingRecord };
  const held = state.transactions.get(heldId)!.data;
  const same = (a: string | null, b: string | null) => a !== null && b !== null && a.toLowerCase() === b.toLowerCase();
  if (held.funding_of === undefined || !same(held.from_address, data.funding.from) || !same(held.to_address, data.from_address)) {
    throw new DomainRefusal('duplicate_transaction', 'This funding transaction is already recorded for this wallet as another transaction.', 'funding_transaction');
  }
  return { send: { ...data, funding: { ...data.funding, wallet_transaction_id: heldId } }, funding: null };
}

function settle(state: WalletSendsState, id: string): WalletTransactionRecord {
  const tx = state.transactions.get(id);
  if (tx === undefined || tx.status === 'reserved' || tx.status === 'released') throw new DomainRefusal('not_found', 'No wallet transaction with this id.');
  return tx;
}

export const walletSendsDecider: Decider<WalletSendCommand, WalletTransactionEvent, WalletSendsState> = {
  initialState: { transactions: new Map(), hashes: new Map() },
  decide: (command, state) =>
    decideBy<WalletSendCommand, WalletSendsState, void, WalletTransactionEvent>(
      {
        ReserveWalletSend({ data, funds, fundingRecord }, s) {
          if (s.transactions.has(data.wallet_transaction_id)) return [];
          const { send, funding } = withFunding(s, data, fundingRecord);
          check(s, send, funds);
          return [...(funding ? [{ type: 'WalletSendReserved' as const, data: funding }] : []), { type: 'WalletSendReserved', data: send }];
        },
        RecordWalletTransaction({ data, funds, fundingRecord }, s) {
          const known = s.transactions.get(data.wallet_transaction_id);
          if (known?.status === 'reserved') return [{ type: 'WalletTransactionRecorded', data: known.data }];
          if (known !== undefined) return [];
          const { send, funding } = withFunding(s, data, fundingRecord);
          check(s, send, funds);
          return [...(funding ? [{ type: 'WalletTransactionRecorded' as const, data: funding }] : []), { type: 'WalletTransactionRecorded', data: send }];
        },
        ReleaseWalletSend(c, s) {
          return s.transactions.get(c.walletTransactionId)?.status === 'reserved' ? [{ type: 'WalletSendReleased', data: { wallet_transaction_id: c.walletTransactionId, reason: c.reason } }] : [];
        },
        ConfirmWalletTransaction(c, s) {
          const tx = settle(s, c.walletTransactionId);
          if (tx.status !== 'pending') return [];
          // a live send's block not final yet: it stays pending (with its hold), read again later
          if (tx.data.mode === 'live' && !isFinal(tx.data.network, c.confirmations)) return [];
          return [
            {
              type: 'WalletTransactionConfirmed',
              data: {
                wallet_transaction_id: c.walletTransactionId,
                fee_units: c.feeUnits ?? null,
                block: c.block ?? null,
                ...(c.networkFeeUsd != null ? { network_fee_usd: c.networkFeeUsd } : {}),
                ...(c.valueUsd != null ? { value_usd: c.valueUsd } : {}),
              },
            },
          ];
        },
        FailWalletTransaction(c, s) {
          const tx = settle(s, c.walletTransactionId);
          if (tx.status !== 'pending') return [];
          // reverted in a block not final yet: a reorganisation may still mine it elsewhere, so its hold stays
          if (tx.data.mode === 'live' && c.confirmations !== undefined && !isFinal(tx.data.network, c.confirmations)) return [];
          return [
            {
              type: 'WalletTransactionFailed',
              data: {
                wallet_transaction_id: c.walletTransactionId,
                reason: c.reason,
                ...(c.feeUnits != null ? { fee_units: c.feeUnits } : {}),
                ...(c.networkFeeUsd != null ? { network_fee_usd: c.networkFeeUsd } : {}),
              },
            },
          ];
        },
      },
      command,
      state,
      undefined,
    ),
  evolve(state, event) {
    const transactions = new Map(state.transactions);
    const to = (id: string, status: WalletTransactionStatus) => {
      const tx = transactions.get(id);
      if (tx) transactions.set(id, { ...tx, status });
    };
    switch (event.type) {
      case 'WalletSendReserved':
      case 'WalletTransactionRecorded': {
        const hashes = new Map(state.hashes);
        hashes.set(event.data.tx_hash, event.data.wallet_transaction_id);
        transactions.set(event.data.wallet_transaction_id, { data: event.data, status: event.type === 'WalletSendReserved' ? 'reserved' : 'pending' });
        return { transactions, hashes };
      }
      case 'WalletSendReleased': {
        const hashes = new Map(state.hashes);
        const tx = transactions.get(event.data.wallet_transaction_id);
        if (tx) hashes.delete(tx.data.tx_hash);
        to(event.data.wallet_transaction_id, 'released');
        return { transactions, hashes };
      }
      case 'WalletTransactionConfirmed': {
        to(event.data.wallet_transaction_id, 'confirmed');
        const tx = transactions.get(event.data.wallet_transaction_id);
        if (tx && event.data.fee_units != null) transactions.set(event.data.wallet_transaction_id, { ...tx, feeCharged: BigInt(event.data.fee_units) });
        return { ...state, transactions };
      }
      case 'WalletTransactionFailed': {
        to(event.data.wallet_transaction_id, 'failed');
        const tx = transactions.get(event.data.wallet_transaction_id);
        if (tx && event.data.fee_units != null) transactions.set(event.data.wallet_transaction_id, { ...tx, feeCharged: BigInt(event.data.fee_units) });
        return { ...state, transactions };
      }
      default:
        return state;
    }
  },
  fromStored: (stored) => asWalletTransactionEvent(stored),
};
