import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { DomainRefusal, foldWith } from '@lib/domain';
import { EVENT_STORE, EventStore, readStreamOrEmpty } from '@lib/eventstore';
import { NetworkFamily, NetworkId, family } from '@lib/chains';
import type { WalletCreatedData } from './events';
import { bitcoinAddress, evmAddress, phraseSeed, solanaAddress } from './keys';
import { canReceive, notReceivingReason, receivingFamilies } from './receiving';
import { SEED_VAULT, SeedVault } from './seed-vault';
import { WALLET_STREAM } from './stream-categories';
import { WalletState, walletDecider } from './wallet.decider';
import { addressKey, comparable } from './wallets.projector';

/**
 * How far past the addresses handed out an address still counts as the wallet's own (decision
 * 0040, addendum 2026-11-29): BIP-44's gap limit, what wallet software scans past the last used
 * address, so an address another app of the same keys shows next is covered.
 */
export const OWN_ADDRESS_GAP = 20;
/** The most indices below the counter that no checkout holds (reservations whose checkout never opened) one check derives. */
export const OWN_ADDRESS_GAPS_CHECKED = 20;

/**
 * The indices whose addresses a check of "one of the wallet's own" derives (pure): the `gap`
 * indices from the family's counter `next` (the next index a checkout would take), and the
 * indices below it no checkout holds (`unheld`, at most `unheldLimit` of them, the highest first).
 * The addresses checkouts hold are looked up in the address book, not derived.
 */
export function ownAddressIndices(next: number, unheld: readonly number[], gap = OWN_ADDRESS_GAP, unheldLimit = OWN_ADDRESS_GAPS_CHECKED): number[] {
  const below = [...unheld].filter((i) => i >= 0 && i < next).sort((a, b) => b - a).slice(0, unheldLimit);
  return [...Array.from({ length: gap }, (_, k) => next + k), ...below];
}

/** Addresses derived lately, by wallet, family and index (public: the same any checkout shows); bounded, the oldest dropped first. */
const DERIVED = new Map<string, string>();
const DERIVED_KEPT = 50_000;

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

  /**
   * Whether `address` (valid for `network`) is one of the wallet's own (spec §4 POST
   * /wallet/transactions: 400 invalid_address; decision 0040, addendum 2026-11-29): an address a
   * checkout holds (the address book), an external wallet's one Solana address, or the address the
   * wallet's keys derive at an index of `ownAddressIndices` — up to OWN_ADDRESS_GAP past the
   * family's counter, and the indices below it no checkout holds. Derived addresses are kept
   * (DERIVED), so a wallet's check derives only the indices its last one did not.
   */
  async isOwn(wallet: WalletCreatedData, network: NetworkId, address: string): Promise<boolean> {
    const addressFamily = family(network);
    const same = (a: string) => comparable(addressFamily, a) === comparable(addressFamily, address);
    const held = await this.db.query(`SELECT 1 FROM wallet_addresses WHERE wallet_id = $1 AND address_key = $2`, [wallet.wallet_id, addressKey(addressFamily, address)], 'wallet_owns_held');
    if (held.rows.length > 0) return true;
    if (addressFamily === 'solana' && wallet.solana && 'address' in wallet.solana) return same(wallet.solana.address);
    if (!receivingFamilies(wallet).has(addressFamily)) return false;
    const { rows } = await this.db.query<{ next: number; held: number }>(
      `SELECT COALESCE((SELECT next_index FROM wallet_address_counters WHERE wallet_id = $1 AND family = $2), 0) AS next,
              (SELECT count(*) FROM wallet_addresses WHERE wallet_id = $1 AND family = $2) AS held`,
      [wallet.wallet_id, addressFamily],
      'wallet_owns_counter',
    );
    const next = Number(rows[0].next);
    let unheld: number[] = [];
    if (Number(rows[0].held) < next) {
      // reservations whose checkout never opened (or not yet in the book): their indices, the highest first
      const gaps = await this.db.query<{ index: number }>(
        `SELECT i AS index FROM generate_series(0, $3::int - 1) AS i
         EXCEPT SELECT address_index FROM wallet_addresses WHERE wallet_id = $1 AND family = $2
         ORDER BY 1 DESC LIMIT $4`,
        [wallet.wallet_id, addressFamily, next, OWN_ADDRESS_GAPS_CHECKED],
        'wallet_owns_gaps',
      );
      unheld = gaps.rows.map((r) => Number(r.index));
    }
    let seed: Uint8Array | null = null;
    for (const index of ownAddressIndices(next, unheld)) {
      const key = `${wallet.wallet_id}:${addressFamily}:${index}`;
      let derived = DERIVED.get(key);
      if (derived === undefined) {
        if (addressFamily === 'solana') {
          if (seed === null) {
            const phrase = await this.vault.phrase(wallet.wallet_id);
            if (phrase === null) return false;
            seed = phraseSeed(phrase);
          }
          derived = solanaAddress(seed, index);
        } else {
          derived = await this.derive(wallet, addressFamily, index);
        }
        if (DERIVED.size >= DERIVED_KEPT) DERIVED.delete(DERIVED.keys().next().value!);
        DERIVED.set(key, derived);
      }
      if (same(derived)) return true;
    }
    return false;
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
