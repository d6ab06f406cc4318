import { Decider, DomainRefusal, decideBy } from '@lib/domain';
import type { NetworkFamily } from '@lib/chains';
import { WalletChangeCanceledData, WalletCreatedData, WalletEvent, WalletKeyEvent, WalletType, asWalletEvent, asWalletKeyEvent } from './events';

/** The hold of a deletion once the business has received a payment or finished setup (§3, §8 "Wallet deletion hold"). */
export const WALLET_DELETION_HOLD_MS = 24 * 60 * 60 * 1000;

/**
 * The wallets of one business (stream `wallet-<biz_id>`) and the key claims (stream
 * `wallet_key-<fingerprint>`), as pure deciders with given/when/then tests
 * (test/wallets/wallet.decider.spec.ts).
 */

export interface WalletState {
  /** The business's wallet now, or null. */
  current: WalletCreatedData | null;
  /** Every wallet id this business ever had (a key claimed by one of them stays taken). */
  history: readonly string[];
  /** Every wallet change (deletion) asked for, by id (decision 0041); absent in states folded before deletion existed. */
  changes?: Readonly<Record<string, WalletChangeState>>;
  /** The pending change's id, or null. */
  pending?: string | null;
  /** When the business finished setup (BusinessSetupFinished), or null: still in setup. */
  setupFinishedAt?: string | null;
}

export type WalletChangeStatus = 'pending' | 'canceled' | 'applied';

export interface WalletChangeState {
  id: string;
  walletId: string;
  status: WalletChangeStatus;
  tokenHash: string;
  requestedAt: string;
  effectiveAt: string;
  canceledAt: string | null;
}

export const initialWalletState: WalletState = { current: null, history: [], changes: {}, pending: null, setupFinishedAt: null };

/**
 * DELETE /wallet (decision 0041): removed at once while the business is in setup and has received
 * nothing; otherwise a deletion pending for 24 hours (`at` + the hold). `receivedFunds` comes from
 * the payments and referral read models (hasReceivedFunds); `at` is the business's time.
 */
export interface DeleteWallet {
  type: 'DeleteWallet';
  businessId: string;
  changeId: string;
  tokenHash: string;
  receivedFunds: boolean;
  at: string;
}

/**
 * Cancel a pending deletion: by the e-mailed link's token hash, or by its id from the dashboard —
 * or by the request itself when its notice could not be e-mailed (`undelivered`: the request is
 * withdrawn and answered 503 email_unavailable; decision 0041, addendum of 2026-11-29).
 */
export interface CancelWalletChange {
  type: 'CancelWalletChange';
  businessId: string;
  by: { tokenHash: string } | { changeId: string; undelivered?: true };
  at: string;
}

/** The pending deletion takes effect (its timer, at effective_at). */
export interface ApplyWalletChange {
  type: 'ApplyWalletChange';
  businessId: string;
  changeId: string;
  at: string;
}

/** Finish setup (decision 0041): needs a wallet (409 wallet_required). */
export interface FinishSetup {
  type: 'FinishSetup';
  businessId: string;
  at: string;
}

/**
 * Show the wallet's recovery phrase to a stepped-up dashboard session (decision 0041 "Recovery
 * phrase"): no wallet → 404 not_found; an external wallet → 409 external_wallet; otherwise the
 * reveal is recorded (who and when), before the phrase leaves the vault.
 */
export interface RevealRecoveryPhrase {
  type: 'RevealRecoveryPhrase';
  businessId: string;
  accountId: string;
  at: string;
}

export type WalletCommand = CreateWallet | DeleteWallet | CancelWalletChange | ApplyWalletChange | FinishSetup | RevealRecoveryPhrase;

/** Whether the business is still in setup (decision 0041): it never finished it. */
export const inSetup = (state: WalletState): boolean => !state.setupFinishedAt;

const invalidCancelLink = () => new DomainRefusal('invalid_token', 'This cancel link was used, replaced or has expired.', 'token');

export interface CreateWallet {
  type: 'CreateWallet';
  walletId: string;
  businessId: string;
  walletType: WalletType;
  evmXpub: string | null;
  bitcoinXpub: string | null;
  solana: WalletCreatedData['solana'];
}

export const walletDecider: Decider<WalletCommand, WalletEvent, WalletState> = {
  initialState: initialWalletState,
  decide: (command, state) =>
    decideBy<WalletCommand, WalletState, void, WalletEvent>(
      {
        CreateWallet: createWallet,
        DeleteWallet: deleteWallet,
        CancelWalletChange: cancelWalletChange,
        ApplyWalletChange: applyWalletChange,
        FinishSetup: finishSetup,
        RevealRecoveryPhrase: revealRecoveryPhrase,
      },
      command,
      state,
      undefined,
      'wallet command',
    ),
  evolve(state, event) {
    switch (event.type) {
      case 'WalletCreated':
        return { ...state, current: event.data, history: [...state.history, event.data.wallet_id] };
      case 'WalletDeletionRequested': {
        const d = event.data;
        const change: WalletChangeState = { id: d.change_id, walletId: d.wallet_id, status: 'pending', tokenHash: d.token_hash, requestedAt: d.requested_at, effectiveAt: d.effective_at, canceledAt: null };
        return { ...state, changes: { ...state.changes, [d.change_id]: change }, pending: d.change_id };
      }
      case 'WalletChangeCanceled': {
        const change = state.changes?.[event.data.change_id];
        if (!change) return state;
        return { ...state, changes: { ...state.changes, [change.id]: { ...change, status: 'canceled', canceledAt: event.data.canceled_at } }, pending: state.pending === change.id ? null : (state.pending ?? null) };
      }
      case 'WalletDeleted': {
        const change = event.data.change_id ? state.changes?.[event.data.change_id] : undefined;
        const changes = change ? { ...state.changes, [change.id]: { ...change, status: 'applied' as const } } : state.changes;
        return { ...state, current: state.current?.wallet_id === event.data.wallet_id ? null : state.current, changes, pending: change && state.pending === change.id ? null : (state.pending ?? null) };
      }
      case 'BusinessSetupFinished':
        return { ...state, setupFinishedAt: event.data.finished_at };
      default:
        return state;
    }
  },
  fromStored: asWalletEvent,
};

function createWallet(command: CreateWallet, state: WalletState): WalletEvent[] {
  if (state.current !== null) {
    if (state.current.wallet_id === command.walletId) return []; // the same creation again
    throw new DomainRefusal('wallet_exists', 'This business already has a wallet.');
  }
  if (command.evmXpub === null && command.bitcoinXpub === null && command.solana === null) {
    throw new DomainRefusal('invalid_request', 'A wallet needs at least one key to receive with.', null);
  }
  return [
    {
      type: 'WalletCreated',
      data: {
        wallet_id: command.walletId,
        business_id: command.businessId,
        type: command.walletType,
        evm_xpub: command.evmXpub,
        bitcoin_xpub: command.bitcoinXpub,
        solana: command.solana,
      },
    },
  ];
}

function deleteWallet(command: DeleteWallet, state: WalletState): WalletEvent[] {
  const wallet = state.current;
  if (wallet === null) throw new DomainRefusal('not_found', 'This business has no wallet.');
  if (state.pending) throw new DomainRefusal('wallet_change_pending', 'The wallet is already set to be deleted.');
  if (inSetup(state) && !command.receivedFunds) {
    return [{ type: 'WalletDeleted', data: { wallet_id: wallet.wallet_id, business_id: command.businessId, change_id: null, deleted_at: command.at } }];
  }
  return [
    {
      type: 'WalletDeletionRequested',
      data: {
        change_id: command.changeId,
        wallet_id: wallet.wallet_id,
        business_id: command.businessId,
        requested_at: command.at,
        effective_at: new Date(Date.parse(command.at) + WALLET_DELETION_HOLD_MS).toISOString(),
        token_hash: command.tokenHash,
      },
    },
  ];
}

/** The change a cancel names: by token (unknown → 400 invalid_token) or by id (unknown → 404 not_found). */
function changeNamed(by: CancelWalletChange['by'], state: WalletState): WalletChangeState {
  const changes = Object.values(state.changes ?? {});
  if ('tokenHash' in by) {
    const change = changes.find((c) => c.tokenHash === by.tokenHash);
    if (!change) throw invalidCancelLink();
    return change;
  }
  const change = state.changes?.[by.changeId];
  if (!change) throw new DomainRefusal('not_found', 'No wallet change with this id.');
  return change;
}

/**
 * A pending change is canceled until its effective_at; an applied one (or one past its
 * effective_at, which its timer is about to apply) is 409 wallet_change_applied. A canceled one:
 * its link is used (400 invalid_token); from the dashboard, canceling again changes nothing.
 */
function cancelWalletChange(command: CancelWalletChange, state: WalletState): WalletEvent[] {
  const change = changeNamed(command.by, state);
  if (change.status === 'applied' || (change.status === 'pending' && Date.parse(command.at) >= Date.parse(change.effectiveAt))) {
    throw new DomainRefusal('wallet_change_applied', 'The wallet change already took effect and cannot be canceled.');
  }
  if (change.status === 'canceled') {
    if ('tokenHash' in command.by) throw invalidCancelLink();
    return [];
  }
  return [{ type: 'WalletChangeCanceled', data: { change_id: change.id, wallet_id: change.walletId, business_id: command.businessId, canceled_at: command.at, via: cancelVia(command.by) } }];
}

function cancelVia(by: CancelWalletChange['by']): WalletChangeCanceledData['via'] {
  if ('tokenHash' in by) return 'link';
  return by.undelivered ? 'undelivered' : 'dashboard';
}

/** At effective_at the pending deletion removes the wallet; a canceled or applied change (a timer firing again) changes nothing. */
function applyWalletChange(command: ApplyWalletChange, state: WalletState): WalletEvent[] {
  const change = state.changes?.[command.changeId];
  if (!change || change.status !== 'pending') return [];
  if (Date.parse(command.at) < Date.parse(change.effectiveAt)) throw new DomainRefusal('invalid_request', `The wallet change takes effect at ${change.effectiveAt}.`, null);
  if (state.current?.wallet_id !== change.walletId) return [];
  return [{ type: 'WalletDeleted', data: { wallet_id: change.walletId, business_id: command.businessId, change_id: change.id, deleted_at: change.effectiveAt } }];
}

function finishSetup(command: FinishSetup, state: WalletState): WalletEvent[] {
  if (!inSetup(state)) return [];
  if (state.current === null) throw new DomainRefusal('wallet_required', 'Create, import or connect a wallet first (POST /wallet): setup needs one.');
  return [{ type: 'BusinessSetupFinished', data: { business_id: command.businessId, wallet_id: state.current.wallet_id, finished_at: command.at } }];
}

/** Every reveal is recorded (a pending deletion does not stop it: the owner may want the phrase before the wallet goes). */
function revealRecoveryPhrase(command: RevealRecoveryPhrase, state: WalletState): WalletEvent[] {
  const wallet = state.current;
  if (wallet === null) throw new DomainRefusal('not_found', 'This business has no wallet.');
  if (wallet.type === 'external') throw new DomainRefusal('external_wallet', 'This wallet keeps its own keys: the service holds no recovery phrase for it.');
  return [{ type: 'WalletRecoveryPhraseRevealed', data: { wallet_id: wallet.wallet_id, business_id: command.businessId, account_id: command.accountId, revealed_at: command.at } }];
}

/** Who holds a key: the last claim, or null. */
export interface KeyClaimState {
  claim: { walletId: string; businessId: string } | null;
}

export interface ClaimKey {
  type: 'ClaimKey';
  walletId: string;
  businessId: string;
  family: NetworkFamily;
  /** The request field the key came from: what a refusal names. */
  field: string;
  /** Wallet ids this business ever had (WalletState.history): a claim by one of them is a key in use. */
  businessWallets: readonly string[];
}

/**
 * A key may be claimed when no wallet holds it. A claim left by this business's earlier attempt
 * that never became a wallet (the process stopped between the claim and the wallet, or another
 * request created the business's wallet first) is taken over; any other holder — another
 * business, or a wallet of this business, current or past — refuses with invalid_request (§7:
 * "on POST /wallet reused keys are refused").
 */
export const keyClaimDecider: Decider<ClaimKey, WalletKeyEvent, KeyClaimState> = {
  initialState: { claim: null },
  decide(command, state) {
    const held = state.claim;
    if (held !== null) {
      if (held.walletId === command.walletId) return [];
      const orphan = held.businessId === command.businessId && !command.businessWallets.includes(held.walletId);
      if (!orphan) throw new DomainRefusal('invalid_request', 'These keys are already used by another wallet.', command.field);
    }
    return [{ type: 'WalletKeyClaimed', data: { wallet_id: command.walletId, business_id: command.businessId, family: command.family } }];
  },
  evolve(_state, event) {
    return { claim: { walletId: event.data.wallet_id, businessId: event.data.business_id } };
  },
  fromStored: asWalletKeyEvent,
};
