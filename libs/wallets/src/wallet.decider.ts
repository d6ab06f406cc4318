import { Decider, DomainRefusal } from '@lib/domain';
import type { NetworkFamily } from '@lib/chains';
import { WalletCreatedData, WalletEvent, WalletKeyEvent, WalletType, asWalletEvent, asWalletKeyEvent } from './events';

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
}

export const initialWalletState: WalletState = { current: null, history: [] };

export interface CreateWallet {
  type: 'CreateWallet';
  walletId: string;
  businessId: string;
  walletType: WalletType;
  evmXpub: string | null;
  bitcoinXpub: string | null;
  solana: WalletCreatedData['solana'];
}

export const walletDecider: Decider<CreateWallet, WalletEvent, WalletState> = {
  initialState: initialWalletState,
  decide(command, state) {
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
  },
  evolve(state, event) {
    switch (event.type) {
      case 'WalletCreated':
        return { current: event.data, history: [...state.history, event.data.wallet_id] };
      default:
        return state;
    }
  },
  fromStored: asWalletEvent,
};

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
