import { NETWORK_IDS, NetworkFamily, NetworkId, assetsOn, family } from '@lib/chains';
import type { WalletCreatedData } from './events';

/**
 * Which networks a wallet can receive on (pure). A fresh address per checkout is the rule (§1):
 * EVM networks need the EVM account key, Bitcoin the BIP-84 account key, Solana the phrase
 * (ed25519 has no public derivation), so an external wallet never receives on Solana (issue 19 A5).
 */
export function receivingFamilies(wallet: Pick<WalletCreatedData, 'evm_xpub' | 'bitcoin_xpub' | 'solana'>): ReadonlySet<NetworkFamily> {
  const families = new Set<NetworkFamily>();
  if (wallet.evm_xpub) families.add('evm');
  if (wallet.bitcoin_xpub) families.add('bitcoin');
  if (wallet.solana && 'derived' in wallet.solana) families.add('solana');
  return families;
}

export function canReceive(wallet: Pick<WalletCreatedData, 'evm_xpub' | 'bitcoin_xpub' | 'solana'>, network: NetworkId): boolean {
  return receivingFamilies(wallet).has(family(network));
}

/** Why a wallet does not receive on a network, in words for the API's error and wallet object. */
export function notReceivingReason(wallet: Pick<WalletCreatedData, 'evm_xpub' | 'bitcoin_xpub' | 'solana'>, network: NetworkId): string | null {
  if (canReceive(wallet, network)) return null;
  switch (family(network)) {
    case 'evm':
      return 'The wallet has no EVM account key (evm_xpub).';
    case 'bitcoin':
      return 'The wallet has no Bitcoin account key (bitcoin_xpub).';
    case 'solana':
      return wallet.solana && 'address' in wallet.solana
        ? 'A wallet connected with one Solana address cannot receive on Solana: every checkout needs a fresh address, which only a wallet holding its recovery phrase can derive.'
        : 'The wallet has no Solana keys.';
  }
}

/**
 * The families a wallet holds keys of, so that a send can be "from the wallet" (spec §4 POST
 * /wallet/transactions; decision 0040, addendum 2026-11-29): EVM and Bitcoin by their account
 * keys, Solana by the phrase or, for an external wallet, its one address (it sends from it though
 * it never receives through checkouts). A wallet created or imported here holds all three.
 */
export function sendingFamilies(wallet: Pick<WalletCreatedData, 'evm_xpub' | 'bitcoin_xpub' | 'solana'>): ReadonlySet<NetworkFamily> {
  const families = new Set<NetworkFamily>();
  if (wallet.evm_xpub) families.add('evm');
  if (wallet.bitcoin_xpub) families.add('bitcoin');
  if (wallet.solana) families.add('solana');
  return families;
}

/** Why a wallet cannot send on a network (no keys of its family), in words for the API's error; null when it can. */
export function notSendingReason(wallet: Pick<WalletCreatedData, 'evm_xpub' | 'bitcoin_xpub' | 'solana'>, network: NetworkId): string | null {
  if (sendingFamilies(wallet).has(family(network))) return null;
  switch (family(network)) {
    case 'evm':
      return `This wallet holds no keys on ${network}: it has no EVM account key (evm_xpub).`;
    case 'bitcoin':
      return `This wallet holds no keys on ${network}: it has no Bitcoin account key (bitcoin_xpub).`;
    case 'solana':
      return `This wallet holds no keys on ${network}: it has no Solana keys.`;
  }
}

/** Why a live business's checkout cannot take a network this service watches no chain of (the checkout's 409 not_accepting says the same). */
export function notWatchedReason(network: NetworkId): string {
  return `This service does not watch ${network} yet: live payments are not taken there.`;
}

/**
 * Every network, with whether the wallet receives there and the assets it would. `watched`: for
 * a live business, the networks this service has a node for (a network without one does not
 * receive, whatever the wallet's keys); null for a simulated business, which watches no chain.
 */
export function walletNetworks(wallet: Pick<WalletCreatedData, 'evm_xpub' | 'bitcoin_xpub' | 'solana'>, watched: ReadonlySet<NetworkId> | null = null) {
  return NETWORK_IDS.map((network) => {
    const reason = notReceivingReason(wallet, network) ?? (watched === null || watched.has(network) ? null : notWatchedReason(network));
    return { network, assets: assetsOn(network), receiving: reason === null, reason };
  });
}
