import type { AssetCode, NetworkId } from '@lib/chains';
import type { WalletCreatedData, WalletType } from './events';
import { walletNetworks } from './receiving';
import type { WalletChangeView } from './changes/wallet-changes';

/** One address a checkout reserved, as GET /wallet lists it. */
export interface WalletAddressView {
  address: string;
  network: NetworkId;
  index: number;
  checkout_id: string;
  payment_id: string;
  reserved_at: string;
}

/** The wallet object (GET /wallet; decision 0024). */
export interface WalletView {
  kind: 'wallet';
  id: string;
  type: WalletType;
  /** Every network: whether the wallet receives there (and why not), the assets it would receive. */
  networks: { network: NetworkId; assets: readonly AssetCode[]; receiving: boolean; reason: string | null }[];
  /** The public keys addresses come from. */
  keys: { evm_xpub: string | null; bitcoin_xpub: string | null; solana_address: string | null; solana_derived: boolean };
  /** Addresses in use: how many checkouts reserved one, and the latest (at most 20). */
  addresses: { total: number; recent: WalletAddressView[] };
  /** A deletion waiting for its hold (§3, §4; decision 0041): the wallet change, or null. */
  pending_change: WalletChangeView | null;
  created_at: string;
}

export const RECENT_ADDRESSES = 20;

/** `watched`: the networks this service watches, for a live business (walletNetworks); null for a simulated one. */
export function walletView(
  wallet: WalletCreatedData,
  createdAt: string,
  addresses: { total: number; recent: WalletAddressView[] },
  pendingChange: WalletChangeView | null = null,
  watched: ReadonlySet<NetworkId> | null = null,
): WalletView {
  return {
    kind: 'wallet',
    id: wallet.wallet_id,
    type: wallet.type,
    networks: walletNetworks(wallet, watched),
    keys: {
      evm_xpub: wallet.evm_xpub,
      bitcoin_xpub: wallet.bitcoin_xpub,
      solana_address: wallet.solana && 'address' in wallet.solana ? wallet.solana.address : null,
      solana_derived: Boolean(wallet.solana && 'derived' in wallet.solana),
    },
    addresses,
    pending_change: pendingChange,
    created_at: createdAt,
  };
}
