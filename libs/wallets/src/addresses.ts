import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { DomainRefusal, foldWith } from '@lib/domain';
import { EVENT_STORE, EventStore, readStreamOrEmpty } from '@lib/eventstore';
import { NetworkFamily, NetworkId, family } from '@lib/chains';
import type { WalletCreatedData } from './events';
import { bitcoinAddress, evmAddress, phraseSeed, solanaAddress } from './keys';
import { canReceive, notReceivingReason } from './receiving';
import { SEED_VAULT, SeedVault } from './seed-vault';
import { WALLET_STREAM } from './stream-categories';
import { WalletState, walletDecider } from './wallet.decider';

/** A fresh address reserved for one checkout: what its CheckoutOpened event records. */
export interface ReservedAddress {
  walletId: string;
  address: string;
  /** The derivation index (m/…/0/index on EVM and Bitcoin, m/44'/501'/index'/0' on Solana). */
  index: number;
}

/**
 * Fresh receiving addresses (§1: "a crypto checkout reserves a fresh address in the business's
 * wallet"): the business's wallet from its stream, the next unused index of the address family
 * (wallet_address_counters, one statement), the address derived from the wallet's public keys
 * (EVM, Bitcoin) or its sealed phrase (Solana). A business without a wallet, or whose wallet
 * cannot receive on the network, is refused with 409 not_accepting (§7).
 */
@Injectable()
export class WalletAddresses {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATABASE) private readonly db: Sql,
    @Inject(SEED_VAULT) private readonly vault: SeedVault,
  ) {}

  /** The business's wallet now (its stream), or null. */
  async wallet(businessId: string): Promise<WalletCreatedData | null> {
    return (await this.state(businessId)).current;
  }

  async state(businessId: string): Promise<WalletState> {
    return foldWith(walletDecider, await readStreamOrEmpty(this.store, WALLET_STREAM.stream(businessId)));
  }

  /** 409 not_accepting unless the business's wallet receives on `network`; the wallet otherwise. */
  async receivingWallet(businessId: string, network: NetworkId): Promise<WalletCreatedData> {
    const wallet = await this.wallet(businessId);
    if (wallet === null) throw new DomainRefusal('not_accepting', 'This business has no wallet to receive payments yet.', 'network');
    if (!canReceive(wallet, network)) throw new DomainRefusal('not_accepting', `This business's wallet cannot receive on ${network}. ${notReceivingReason(wallet, network)}`, 'network');
    return wallet;
  }

  /** Reserves the next unused address of the business's wallet for a checkout on `network`. */
  async reserve(businessId: string, network: NetworkId): Promise<ReservedAddress> {
    const wallet = await this.receivingWallet(businessId, network);
    const addressFamily = family(network);
    const index = await this.nextIndex(wallet.wallet_id, addressFamily);
    return { walletId: wallet.wallet_id, index, address: await this.derive(wallet, addressFamily, index) };
  }

  private async derive(wallet: WalletCreatedData, addressFamily: NetworkFamily, index: number): Promise<string> {
    switch (addressFamily) {
      case 'evm':
        return evmAddress(wallet.evm_xpub!, index);
      case 'bitcoin':
        return bitcoinAddress(wallet.bitcoin_xpub!, index);
      case 'solana': {
        const phrase = await this.vault.phrase(wallet.wallet_id);
        if (phrase === null) throw new Error(`wallet ${wallet.wallet_id}: no sealed phrase to derive a Solana address from`);
        return solanaAddress(phraseSeed(phrase), index);
      }
    }
  }

  /** The wallet's next unused index of the family, taken (one statement; concurrent callers get different ones). */
  private async nextIndex(walletId: string, addressFamily: NetworkFamily): Promise<number> {
    const { rows } = await this.db.query<{ index: number }>(
      `INSERT INTO wallet_address_counters (wallet_id, family, next_index) VALUES ($1, $2, 1)
       ON CONFLICT (wallet_id, family) DO UPDATE SET next_index = wallet_address_counters.next_index + 1
       RETURNING next_index - 1 AS index`,
      [walletId, addressFamily],
      'wallet_next_index',
    );
    return Number(rows[0].index);
  }
}
