import { Inject, Optional } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { type Hex, isHex, keccak256, parseTransaction, recoverTransactionAddress } from 'viem';
import { NetworkId, SignedSendRefused, USDC_EIP712_DOMAIN, family, isAssetCode, isNetworkId, verifySignedEvmSend, verifySignedSolanaSend } from '@lib/chains';
import { DomainRefusal, ERROR_STATUS, ErrorCode, Refusal } from '@lib/domain';
import { newId } from '@lib/http';
import { MoneyError, parsePositiveCryptoAmount } from '@lib/money';
import { WalletAddresses } from '../../addresses';
import { notSendingReason } from '../../receiving';
import { evmFeeUnits, solanaFeeUnits } from '../../sends/send-fees';
import type { WalletSendFunding, WalletTransactionRecordedData, WalletSendSpeed } from '../../sends/events';
import { WalletRelay } from '../../sends/relay';
import { FUNDING_WAIT_MS, WALLET_SEND_OPTIONS, WalletSendOptions } from '../../sends/send-options';
import { WalletSendTimers } from '../../sends/send-timers';
import { WalletSends } from '../../sends/wallet-sends';
import { WalletSendsState, fundingTransaction } from '../../sends/wallet-transaction.decider';
import { WalletTransactionView, WalletTransactionsReadModel } from '../../sends/wallet-transactions.read-model';
import { SendFromWalletCommand } from './send-from-wallet.command';

/** Networks whose transactions the dashboard signs and the service checks (spec §4). */
export const SIGNING_NETWORKS: readonly NetworkId[] = ['solana', 'polygon', 'ethereum'];
/** The greatest fee of a Solana transfer the service holds: 5000 lamports a signature, two signatures at most, plus a priority fee allowance. */
const SOLANA_FEE_HOLD = 1_000_000n;

/** The chains library's refusals (SignedSendRefused: 400 invalid_request naming the field) as the API's. */
async function asDomainRefusal<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Refusal && !(error instanceof DomainRefusal) && error.code in ERROR_STATUS) throw new DomainRefusal(error.code as ErrorCode, error.message, error.field);
    throw error;
  }
}

const invalid = (message: string, field: string) => new DomainRefusal('invalid_request', message, field);

/**
 * Sends from the business's wallet (POST /wallet/transactions; spec §4, decision 0040). A wallet
 * created or imported here: the signed transaction is checked (it pays exactly the amount of the
 * asset to the recipient from one of the wallet's addresses), its funds held, relayed (a live
 * business; the funding transaction first) and recorded by hash — a simulated business broadcasts
 * nothing and its send confirms on a timer. An external wallet: an unverified record of a hash,
 * which holds nothing and is matched against the chain (failed on a timer when simulated). A
 * funding transaction is a wallet transaction of its own, held with the send and recorded once
 * relayed, whatever becomes of the send (decision 0040, addendum 2026-11-28).
 */
@CommandHandler(SendFromWalletCommand)
export class SendFromWalletHandler implements ICommandHandler<SendFromWalletCommand, WalletTransactionView> {
  constructor(
    private readonly wallets: WalletAddresses,
    private readonly sends: WalletSends,
    private readonly relay: WalletRelay,
    private readonly read: WalletTransactionsReadModel,
    private readonly timers: WalletSendTimers,
    @Optional() @Inject(WALLET_SEND_OPTIONS) private readonly options: WalletSendOptions = {},
  ) {}

  async execute({ business, input, meta }: SendFromWalletCommand): Promise<WalletTransactionView> {
    const wallet = await this.wallets.wallet(business.id);
    if (wallet === null) throw new DomainRefusal('not_found', 'This business has no wallet to send from.');
    const registry = this.sends.registry;
    if (!isNetworkId(input.network)) throw invalid(`network must be one of ${registry.networks().map((n) => n.id).join(', ')}.`, 'network');
    const network = input.network;
    // a send is "from the wallet": a network whose keys it does not hold has none (decision 0040, addendum 2026-11-29)
    const noKeys = notSendingReason(wallet, network);
    if (noKeys !== null) throw invalid(noKeys, 'network');
    if (!isAssetCode(input.asset) || !registry.supports(input.asset, network)) throw invalid(`${network} does not carry ${input.asset}.`, 'asset');
    const asset = input.asset;
    let units: bigint;
    try {
      units = parsePositiveCryptoAmount(input.amount, registry.decimals(asset), 'amount');
    } catch (error) {
      if (error instanceof MoneyError) throw invalid(error.message, 'amount');
      throw error;
    }
    if (!registry.isValidAddress(network, input.to_address)) throw new DomainRefusal('invalid_address', `to_address is not a valid ${network} address.`, 'to_address');
    const to = registry.normalizeAddress(network, input.to_address);
    if (await this.wallets.isOwn(wallet, network, to)) throw new DomainRefusal('invalid_address', 'to_address is one of this wallet’s own addresses.', 'to_address');

    const base = {
      wallet_transaction_id: newId('wtx'),
      wallet_id: wallet.wallet_id,
      business_id: business.id,
      mode: business.simulated ? ('test' as const) : ('live' as const),
      asset,
      network,
      units: units.toString(),
      to_address: to,
      speed: (input.speed ?? 'standard') as WalletSendSpeed,
      note: input.note ?? null,
    };

    if (wallet.type === 'external') {
      for (const field of ['signed_transaction', 'funding_transaction'] as const) {
        if (input[field] !== undefined) throw invalid(`${field} is for wallets created or imported in the service; an external wallet records a send by its tx_hash.`, field);
      }
      if (input.tx_hash === undefined) throw invalid('tx_hash is required: an external wallet records a send made in its own app by its hash.', 'tx_hash');
      if (!registry.isValidTxHash(network, input.tx_hash)) throw invalid(`tx_hash is not a ${network} transaction hash.`, 'tx_hash');
      const data: WalletTransactionRecordedData = { ...base, kind: 'external', from_address: null, tx_hash: registry.normalizeTxHash(network, input.tx_hash), max_fee_units: null, raw: null };
      await this.refuseKnownHash(network, data.tx_hash, 'tx_hash');
      const at = await this.recordedAt(business);
      await this.sends.decide(wallet.wallet_id, { type: 'RecordWalletTransaction', data, funds: null }, meta, at);
      await this.timers.recorded(data, at);
      return this.answer(business.id, data.wallet_transaction_id);
    }

    if (input.tx_hash !== undefined) throw invalid('tx_hash is for external wallets; a wallet created or imported in the service sends a signed_transaction.', 'tx_hash');
    if (!SIGNING_NETWORKS.includes(network)) throw invalid(`Signing is supported on ${SIGNING_NETWORKS.join(', ')}; ${network} is not one of them.`, 'network');
    if (input.signed_transaction === undefined) throw invalid('signed_transaction is required for a wallet created or imported in the service.', 'signed_transaction');
    if (input.funding_transaction !== undefined && family(network) !== 'evm') throw invalid('funding_transaction is for EVM networks only.', 'funding_transaction');
    const from = await this.sends.addresses(wallet.wallet_id, family(network));
    const { signed, funding } = await asDomainRefusal(async () => {
      const checked = await this.verify(network, asset, units, to, from, input.signed_transaction!);
      return { signed: checked, funding: input.funding_transaction === undefined ? null : await this.verifyFunding(network, input.funding_transaction, checked.from, from) };
    });
    // USD cents of the amount and of the fee the transaction sets (the fee coin's price, POL's too: 0040 addendum of
    // 2026-11-29), at the service's rates
    const feeAsset = registry.network(network).nativeCurrency.asset;
    const feeUsdOf = (units: bigint | string) => this.sends.rates.feeUsd(business.simulated, network, BigInt(units));
    const [valueUsd, networkFeeUsd, fundingValueUsd, fundingFeeUsd] = await Promise.all([
      this.sends.rates.valueUsd(business.simulated, asset, units),
      feeUsdOf(signed.fee),
      funding === null ? null : feeUsdOf(funding.units),
      funding === null ? null : feeUsdOf(funding.max_fee_units),
    ]);
    const data: WalletTransactionRecordedData = {
      ...base,
      kind: 'signed',
      from_address: signed.from,
      tx_hash: signed.hash,
      max_fee_units: signed.maxFee.toString(),
      raw: signed.raw,
      fee_payer: signed.feePayer === signed.from ? null : signed.feePayer,
      funding,
      value_usd: valueUsd,
      network_fee_usd: networkFeeUsd,
    };
    // the funding transaction as a wallet transaction of its own: its coin and fee are on the books whatever becomes of the send
    // (POL, which the service does not track, has no asset to record it in: its funding stays on the send alone)
    const fundingRecord = funding === null || feeAsset === null ? undefined : fundingTransaction(data, newId('wtx'), feeAsset, { value_usd: fundingValueUsd, network_fee_usd: fundingFeeUsd });
    await this.refuseKnownHash(network, data.tx_hash, 'signed_transaction');
    if (funding !== null) await this.refuseForeignFunding(business.id, network, funding.tx_hash);
    // the fee coin is the fee payer's (an EIP-3009 submitter's); a funding transaction's funder is checked too, and its coin credited to the sender (the decider)
    const funds = await this.sends.funds(wallet.wallet_id, network, signed.from, asset, { feePayer: signed.feePayer, funder: funding?.from });
    /** The funding's record the send names after `state` (a new one, or the one a retry leans on): whether it is the new one, and whether it is only held yet (not known relayed). */
    const fundingOf = (state: WalletSendsState) => {
      const id = state.transactions.get(data.wallet_transaction_id)?.data.funding?.wallet_transaction_id ?? null;
      const record = id === null ? undefined : state.transactions.get(id);
      return { id, record: record?.data, isNew: fundingRecord !== undefined && id === fundingRecord.wallet_transaction_id, held: record?.status === 'reserved' };
    };

    if (business.simulated) {
      // a simulated business broadcasts nothing: recorded (with its funding transaction), confirmed on its timer (§3)
      const at = await this.recordedAt(business);
      const recorded = fundingOf(await this.sends.decide(wallet.wallet_id, { type: 'RecordWalletTransaction', data, funds, fundingRecord }, meta, at));
      if (recorded.isNew) await this.timers.recorded(fundingRecord!, at);
      await this.timers.recorded(data, at);
      return this.answer(business.id, data.wallet_transaction_id);
    }
    const held = fundingOf(await this.sends.decide(wallet.wallet_id, { type: 'ReserveWalletSend', data, funds, fundingRecord }, meta));
    const release = (id: string, error: unknown) => this.sends.decide(wallet.wallet_id, { type: 'ReleaseWalletSend', walletTransactionId: id, reason: error instanceof Refusal ? error.code : 'relay failed' }, meta);
    // relayed first, unless the wallet recorded it already (a retry leaning on it): not relayed again (mined, the node would refuse it);
    // one only held yet (another request's, relaying it now or interrupted) is relayed here too — the same bytes
    if (funding !== null && (fundingRecord === undefined || held.held)) {
      try {
        await this.relayFunding(network, funding);
      } catch (error) {
        if (held.isNew) await release(held.id!, error);
        await release(data.wallet_transaction_id, error);
        throw error;
      }
      // broadcast: on the books from now on, settled by its own receipt whatever becomes of the send
      if (held.record !== undefined) await this.sends.decide(wallet.wallet_id, { type: 'RecordWalletTransaction', data: held.record, funds: null }, meta);
    }
    try {
      await this.relaySend(network, data.raw!, funding);
    } catch (error) {
      await release(data.wallet_transaction_id, error);
      throw held.id === null ? error : this.fundingKept(error, held.id);
    }
    await this.sends.decide(wallet.wallet_id, { type: 'RecordWalletTransaction', data, funds }, meta);
    await this.timers.recorded(data);
    return this.answer(business.id, data.wallet_transaction_id);
  }

  /**
   * When a send is recorded (its `created_at`): a simulated business's own time (its test clock,
   * decision 0010), as its settle timer and its `confirmed_at`/`failed_at`; undefined for a live
   * business, whose clock is wall time (the store's time of the event).
   */
  private recordedAt(business: { id: string; simulated: boolean }): Promise<Date | undefined> {
    return business.simulated ? this.timers.now(business.id) : Promise.resolve(undefined);
  }

  /**
   * Relays the funding transaction. A node that refuses it may hold it already — mined, it answers
   * "nonce too low" (the dashboard broadcast it first, or an earlier try whose answer was lost): a
   * funding the node knows counts as relayed, so it is on the books.
   */
  private async relayFunding(network: NetworkId, funding: WalletSendFunding): Promise<void> {
    try {
      await this.relay.relay(network, funding.raw);
    } catch (error) {
      if (error instanceof Refusal && error.code === 'transaction_rejected' && (await this.relay.known(network, funding.tx_hash)) === true) return;
      throw error;
    }
  }

  /** A send refused (or unreachable) after its funding was relayed: the same refusal, telling the client that nothing of the send was sent and where its funding is on the books. */
  private fundingKept(error: unknown, fundingId: string): unknown {
    if (!(error instanceof DomainRefusal)) return error;
    const message = `${error.message} Nothing of this send was sent; its funding_transaction was relayed and is recorded as wallet transaction ${fundingId}, which settles on its own. Sending again with the same funding_transaction leans on that record.`;
    return new DomainRefusal(error.code, message, error.field, error.details);
  }

  /**
   * Relays the send. After a funding transaction, a node that checks a transaction against the
   * mined state refuses the send until the funding is mined (a geth-style pool, anvil without
   * automine; live EVM audit): the funding is then already broadcast, so the send is relayed
   * again once the funding's receipt is there (up to FUNDING_WAIT_MS, or the options') instead of answering
   * "nothing sent" while the funding lands.
   */
  private async relaySend(network: NetworkId, raw: string, funding: WalletSendFunding | null): Promise<void> {
    try {
      await this.relay.relay(network, raw);
      return;
    } catch (error) {
      if (funding === null || !(error instanceof Refusal && error.code === 'transaction_rejected')) throw error;
      const deadline = Date.now() + (this.options.fundingWaitMs ?? FUNDING_WAIT_MS);
      for (;;) {
        const outcome = await this.relay.outcome(network, funding.tx_hash);
        if (outcome.status === 'failed') throw error;
        if (outcome.status === 'confirmed') break;
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    await this.relay.relay(network, raw);
  }

  /** 409 duplicate_transaction on funding_transaction when another business recorded this hash (this wallet's own record of it is the decider's: a retry leans on it). */
  private async refuseForeignFunding(businessId: string, network: NetworkId, hash: string): Promise<void> {
    const known = await this.read.byHash(network, hash);
    if (known !== null && known.businessId !== businessId) throw new DomainRefusal('duplicate_transaction', 'This funding transaction is already recorded.', 'funding_transaction');
  }

  /**
   * 409 duplicate_transaction when any wallet recorded this hash (the decider checks the wallet's own stream again).
   * `field` names the input the client sent, as the decider does: `tx_hash` for an external record,
   * `signed_transaction` for a signed send (decision 0040, addendum of 2026-11-29, audit F2).
   */
  private async refuseKnownHash(network: NetworkId, hash: string, field: 'tx_hash' | 'signed_transaction'): Promise<void> {
    if ((await this.read.byHash(network, hash)) !== null) throw new DomainRefusal('duplicate_transaction', 'This transaction is already recorded.', field);
  }

  private async verify(network: NetworkId, asset: Parameters<typeof verifySignedEvmSend>[1]['asset'], amount: bigint, to: string, from: string[], signedTransaction: string) {
    const registry = this.sends.registry;
    if (family(network) === 'evm') {
      // USDC may move by an EIP-3009 authorization another address of the wallet submits and pays for
      const authorizations = asset === 'USDC' ? { domain: USDC_EIP712_DOMAIN, now: new Date() } : undefined;
      const v = await verifySignedEvmSend(signedTransaction, { network, asset, amount, to, from }, registry, { authorizations });
      const fee = evmFeeUnits(v.gas, v.maxFeePerGas);
      return { hash: v.hash.toLowerCase(), from: v.from, feePayer: v.feePayer as string, maxFee: fee, fee, raw: v.serialized as string };
    }
    const v = await verifySignedSolanaSend(signedTransaction, { asset, amount, to, from }, registry);
    return { hash: v.signature, from: v.from, feePayer: v.feePayer, maxFee: SOLANA_FEE_HOLD, fee: await solanaFeeUnits(v.wire), raw: v.wire };
  }

  /** A funding transaction: an EIP-1559 native transfer on the network's chain, from another address of the wallet to the sender. */
  private async verifyFunding(network: NetworkId, text: string, sender: string, from: string[]): Promise<WalletSendFunding> {
    const refuse = (message: string) => new SignedSendRefused(message, 'funding_transaction');
    if (!isHex(text, { strict: true })) throw refuse('funding_transaction must be a signed transaction as 0x-prefixed hex.');
    const raw = text.toLowerCase() as Hex;
    let tx: ReturnType<typeof parseTransaction>;
    try {
      tx = parseTransaction(raw);
    } catch {
      throw refuse('funding_transaction is not a signed transaction this service can read.');
    }
    if (tx.type !== 'eip1559' || tx.r === undefined) throw refuse('funding_transaction must be a signed EIP-1559 transaction.');
    if (tx.chainId !== this.sends.registry.network(network).chainId) throw refuse(`funding_transaction is for chain ${tx.chainId}, not ${network}'s.`);
    if (!tx.to || tx.to.toLowerCase() !== sender.toLowerCase() || (tx.data !== undefined && tx.data !== '0x') || !tx.value) throw refuse('funding_transaction must send the network coin to the sender of signed_transaction.');
    let funder: string;
    try {
      funder = await recoverTransactionAddress({ serializedTransaction: raw as Parameters<typeof recoverTransactionAddress>[0]['serializedTransaction'] });
    } catch {
      throw refuse('funding_transaction has a signature that does not verify.');
    }
    if (!from.some((a) => a.toLowerCase() === funder.toLowerCase())) throw refuse('funding_transaction is not signed by one of this wallet’s addresses.');
    return { from: funder, tx_hash: keccak256(raw), units: tx.value.toString(), max_fee_units: ((tx.gas ?? 0n) * (tx.maxFeePerGas ?? 0n)).toString(), raw };
  }

  private async answer(businessId: string, id: string): Promise<WalletTransactionView> {
    const view = await this.read.get(businessId, id);
    if (view === null) throw new Error(`wallet transaction ${id}: not in the read model after its write`);
    return view;
  }
}
