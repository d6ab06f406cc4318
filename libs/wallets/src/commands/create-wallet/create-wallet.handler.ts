import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NetworkFamily, isValidAddress } from '@lib/chains';
import { DomainRefusal } from '@lib/domain';
import { CommandRunner, metadataFor } from '@lib/eventstore';
import { newId } from '@lib/http';
import { WalletAddresses } from '../../addresses';
import { WalletCreatedData, WalletType } from '../../events';
import { ChainNodes, findWallet, liveNetworksOf } from '../../queries/get-wallet/get-wallet.handler';
import { keyFingerprint, keysOfPhrase, newRecoveryPhrase, normalizePhrase, parseAccountXpub } from '../../keys';
import { SEED_VAULT, SeedVault } from '../../seed-vault';
import { WALLET_KEY_STREAM, WALLET_STREAM } from '../../stream-categories';
import { keyClaimDecider, walletDecider } from '../../wallet.decider';
import { APP_CONFIG, DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { CreateWalletCommand, CreatedWallet } from './create-wallet.command';

/** Key material a wallet takes, with the request field it came from (what a refusal names). */
interface Material {
  family: NetworkFamily;
  material: string;
  field: string;
}

const FIELDS_OF: Record<WalletType, readonly string[]> = {
  created: [],
  imported: ['recovery_phrase'],
  external: ['evm_xpub', 'bitcoin_xpub', 'solana_address'],
};

/**
 * Creates the business's wallet (POST /wallet; decision 0024), in this order:
 * 1. the input: fields of the chosen type only; the phrase a valid BIP-39 English phrase; each
 *    xpub an account-level extended public key; the Solana address valid (400 invalid_request,
 *    `field` naming it);
 * 2. one wallet per business (409 wallet_exists), read from the business's wallet stream;
 * 3. the keys: a `created` wallet gets a new 24-word phrase; the public keys come from the phrase
 *    (created, imported) or the request (external);
 * 4. each key is claimed on its own stream (`wallet_key-<fingerprint>`): a key another wallet
 *    holds — this business's or another's — is refused (400 invalid_request, §7);
 * 5. the phrase is sealed in the vault (before the event, so a wallet never exists without it),
 *    WalletCreated is appended (CommandRunner: a concurrent creation conflicts, is decided again
 *    and refused with wallet_exists), the read model waited for, and the wallet answered.
 */
@CommandHandler(CreateWalletCommand)
export class CreateWalletHandler implements ICommandHandler<CreateWalletCommand, CreatedWallet> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly addresses: WalletAddresses,
    @Inject(SEED_VAULT) private readonly vault: SeedVault,
    @Inject(DATABASE) private readonly db: Sql,
    @Inject(APP_CONFIG) private readonly config: ChainNodes,
  ) {}

  async execute({ businessId, input, meta, simulated }: CreateWalletCommand): Promise<CreatedWallet> {
    // 1. the input
    const type = (input.type ?? 'created') as WalletType;
    if (!(type in FIELDS_OF)) throw new DomainRefusal('invalid_request', 'type must be created, imported or external', 'type');
    for (const field of ['recovery_phrase', 'evm_xpub', 'bitcoin_xpub', 'solana_address'] as const) {
      if (input[field] !== undefined && !FIELDS_OF[type].includes(field)) throw new DomainRefusal('invalid_request', `${field} is not taken by a wallet of type ${type}.`, field);
    }

    // 2. one wallet per business
    const state = await this.addresses.state(businessId);
    if (state.current !== null) throw new DomainRefusal('wallet_exists', 'This business already has a wallet.');

    // 3. the keys
    let phrase: string | null = null;
    let keys: Pick<WalletCreatedData, 'evm_xpub' | 'bitcoin_xpub' | 'solana'>;
    const materials: Material[] = [];
    if (type === 'external') {
      const evm = input.evm_xpub?.trim();
      const bitcoin = input.bitcoin_xpub?.trim();
      const solana = input.solana_address?.trim();
      if (!evm && !bitcoin && !solana) throw new DomainRefusal('invalid_request', 'An external wallet needs evm_xpub, bitcoin_xpub or solana_address.', 'evm_xpub');
      if (evm && !parseAccountXpub(evm, 'evm')) throw new DomainRefusal('invalid_request', "evm_xpub must be an account-level extended public key (xpub at m/44'/60'/0').", 'evm_xpub');
      if (bitcoin && !parseAccountXpub(bitcoin, 'bitcoin')) throw new DomainRefusal('invalid_request', "bitcoin_xpub must be an account-level extended public key (zpub or xpub at m/84'/0'/0').", 'bitcoin_xpub');
      if (solana && !isValidAddress('solana', solana)) throw new DomainRefusal('invalid_request', 'solana_address is not a valid Solana address.', 'solana_address');
      keys = { evm_xpub: evm || null, bitcoin_xpub: bitcoin || null, solana: solana ? { address: solana } : null };
      if (evm) materials.push({ family: 'evm', material: evm, field: 'evm_xpub' });
      if (bitcoin) materials.push({ family: 'bitcoin', material: bitcoin, field: 'bitcoin_xpub' });
      if (solana) materials.push({ family: 'solana', material: solana, field: 'solana_address' });
    } else {
      if (type === 'imported') {
        if (input.recovery_phrase === undefined) throw new DomainRefusal('invalid_request', 'An imported wallet needs its recovery_phrase.', 'recovery_phrase');
        phrase = normalizePhrase(input.recovery_phrase);
        if (phrase === null) throw new DomainRefusal('invalid_request', 'recovery_phrase is not a valid BIP-39 English recovery phrase (12 to 24 words, checksum included).', 'recovery_phrase');
      } else {
        phrase = newRecoveryPhrase();
      }
      const derived = keysOfPhrase(phrase);
      keys = { evm_xpub: derived.evmXpub, bitcoin_xpub: derived.bitcoinXpub, solana: { derived: true } };
      materials.push(
        { family: 'evm', material: derived.evmXpub, field: 'recovery_phrase' },
        { family: 'bitcoin', material: derived.bitcoinXpub, field: 'recovery_phrase' },
        { family: 'solana', material: derived.solanaAddress0, field: 'recovery_phrase' },
      );
    }

    // 4. the claims
    const walletId = newId('wal');
    const metadata = metadataFor(meta);
    for (const m of materials) {
      await this.runner.run(
        keyClaimDecider,
        WALLET_KEY_STREAM.stream(keyFingerprint(m.family, m.material)),
        { type: 'ClaimKey', walletId, businessId, family: m.family, field: m.field, businessWallets: state.history },
        { context: undefined, metadata, waitForReadModels: false },
      );
    }

    // 5. the phrase, the wallet
    const sealed = phrase;
    await this.runner.run(
      walletDecider,
      WALLET_STREAM.stream(businessId),
      { type: 'CreateWallet', walletId, businessId, walletType: type, evmXpub: keys.evm_xpub, bitcoinXpub: keys.bitcoin_xpub, solana: keys.solana },
      { context: undefined, metadata, beforeAppend: async () => (sealed === null ? undefined : this.vault.seal(walletId, businessId, sealed)) },
    );
    const wallet = await findWallet(this.db, businessId, liveNetworksOf(this.config, simulated));
    if (!wallet) throw new Error(`wallet ${walletId} of ${businessId}: not in the read model after its creation`);
    return { wallet, recoveryPhrase: type === 'created' ? phrase : null };
  }
}
