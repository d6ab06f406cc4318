import { Injectable, Logger } from '@nestjs/common';
import { MempoolSnapshot, NetworkId, ObservedTransfer, TransferSink, decimals, family } from '@lib/chains';
import { SYSTEM_ACTOR } from '@lib/eventstore';
import { formatCryptoAmount } from '@lib/money';
import { WalletAddressBook } from '@lib/wallets';
import { uuidv5 } from '../domain/checkout-to-payment';
import { CheckoutCommand } from '../domain/checkout.decider';
import { BusinessClock } from './business-clock';
import { PaymentsProcessManager } from './process-manager';
import { PaymentStreams } from './streams';
import { PaymentsReadModel } from '../read/payments.read-model';

/**
 * Where the chain watchers report (issue 11; the TransferSink of libs/chains/src/watch): each
 * report becomes the checkout command the simulation uses — DetectTransfer, RecordConfirmations —
 * or WithdrawTransfer for a reorganisation, on the checkout whose address received it (the
 * wallets' address book), then settled like any other command. Event ids come from the
 * transfer's key (network, hash, index), its block, what is reported and how often the checkout
 * has had the transfer withdrawn, so a report repeated after a restart appends nothing, while
 * the transaction found again in a block it was withdrawn from (the chain going back to that
 * block) counts again; the deciders ignore what they already know besides.
 *
 * Not credited (logged): a transfer to an address no checkout reserved, one to a simulated
 * business's checkout (simulated businesses move no real money), a coin the checkout did not
 * quote: each stays at the address, in the business's wallet. A further transfer to a checkout
 * that completed or is in review is recorded on it and its payment like any other (0025 addenda,
 * 2026-11-28): on its network counted as the payment's rules say, on another listed for the
 * business to review (wrong_network).
 */
@Injectable()
export class ChainTransfers implements TransferSink {
  private readonly logger = new Logger('chain-transfers');
  /** Per network, from its last awaitingAddresses: each address listed → whether its checkout's row showed a sighting. */
  private readonly awaiting = new Map<NetworkId, Map<string, boolean>>();

  constructor(
    private readonly streams: PaymentStreams,
    private readonly process: PaymentsProcessManager,
    private readonly book: WalletAddressBook,
    private readonly clock: BusinessClock,
    private readonly read: PaymentsReadModel,
  ) {}

  /** The addresses whose mempool the watcher of `network` looks at: checkouts still waiting for money (0023 addendum, 2026-11-29). */
  async awaitingAddresses(network: NetworkId): Promise<readonly string[]> {
    const rows = await this.read.awaitingAddresses(network);
    this.awaiting.set(network, new Map(rows.map((r) => [r.address, r.sighted])));
    return rows.map((r) => r.address);
  }

  /**
   * What the node's mempool holds for a checkout's address (0023 addendum, 2026-11-29): each
   * transaction paying it in the checkout's coin is sighted (SightTransfer: the checkout holds its
   * quote while it waits, if it came in time), and each one sighted before that is neither there
   * nor among the address's mined transactions was dropped or replaced (DropSighting). Event ids
   * name the transaction and how often it was dropped before, so a repeated snapshot appends
   * nothing and a transaction back in the mempool after a drop is a new sighting.
   */
  async mempool(snapshot: MempoolSnapshot): Promise<void> {
    // an empty mempool for a checkout whose row shows no sighting has nothing to record or drop:
    // no address-book or stream read (one look per open Bitcoin checkout every mempool poll). A
    // sighting the read model has not shown yet is dropped at the next look.
    if (snapshot.pending.length === 0 && this.awaiting.get(snapshot.network)?.get(snapshot.address) === false) return;
    const owner = await this.book.owner(family(snapshot.network), snapshot.address);
    if (owner === null) return;
    const { state: checkout, events } = await this.streams.checkoutHistory(owner.checkoutId);
    if (checkout.status === 'none' || checkout.rail !== 'crypto' || checkout.simulated) return;
    const drops = (txHash: string) => events.filter((e) => e.type === 'CheckoutSightingDropped' && (e.data as { tx_hash?: unknown } | null)?.tx_hash === txHash).length;
    const decide = async (txHash: string, report: string, command: CheckoutCommand) => {
      const key = `chain|${snapshot.network}|${txHash}|${report}|dropped-before:${drops(txHash)}`;
      await this.process.decideAndSettle(
        { checkoutId: owner.checkoutId, command },
        { now: await this.clock.now(owner.businessId), eventId: (i) => uuidv5(`${key}#${i}`), metadata: { causationId: key, actor: SYSTEM_ACTOR } },
      );
    };
    for (const pending of snapshot.pending) {
      if (pending.asset !== checkout.asset || checkout.sightings.some((s) => s.txHash === pending.txHash) || checkout.transfers.some((t) => t.txHash === pending.txHash)) continue;
      await decide(pending.txHash, 'sighted', { type: 'SightTransfer', txHash: pending.txHash, network: pending.network, amount: formatCryptoAmount(pending.amount, decimals(pending.asset)) });
    }
    const seen = new Set([...snapshot.pending.map((p) => p.txHash), ...snapshot.mined]);
    for (const sighting of checkout.sightings) {
      if (!seen.has(sighting.txHash)) await decide(sighting.txHash, 'dropped', { type: 'DropSighting', txHash: sighting.txHash });
    }
  }

  async detected(transfer: ObservedTransfer): Promise<void> {
    // keyed by block too: the same transaction withdrawn and mined again (a reorganisation, or the
    // customer's identical transaction signed again) is a new detection, not a repeat of the old
    await this.onCheckoutOf(transfer, `detected:${transfer.block.hash}`, (asset) =>
      asset === transfer.asset
        ? {
            type: 'DetectTransfer',
            txHash: transfer.txHash,
            fromAddress: transfer.from,
            network: transfer.network,
            amount: formatCryptoAmount(transfer.amount, decimals(transfer.asset)),
            minedAt: transfer.block.time === undefined ? null : new Date(transfer.block.time * 1000).toISOString(),
          }
        : null,
    );
  }

  async confirmed(transfer: ObservedTransfer, confirmations: number): Promise<void> {
    await this.onCheckoutOf(transfer, `confirmed:${transfer.block.hash}:${confirmations}`, () => ({ type: 'RecordConfirmations', txHash: transfer.txHash, current: confirmations }));
  }

  async withdrawn(transfer: ObservedTransfer): Promise<void> {
    await this.onCheckoutOf(transfer, `withdrawn:${transfer.block.hash}`, () => ({ type: 'WithdrawTransfer', txHash: transfer.txHash }));
  }

  private async onCheckoutOf(transfer: ObservedTransfer, report: string, command: (checkoutAsset: string) => CheckoutCommand | null): Promise<void> {
    const owner = await this.book.owner(family(transfer.network), transfer.to);
    if (owner === null) {
      this.logger.warn(`${transfer.network} ${transfer.txHash}#${transfer.index}: ${transfer.to} is no checkout's address`);
      return;
    }
    const { state: checkout, events } = await this.streams.checkoutHistory(owner.checkoutId);
    if (checkout.status === 'none') {
      // never thrown: a sink that throws holds its network's watcher on this block
      this.logger.error(`checkout ${owner.checkoutId} of address ${transfer.to} has no stream: ${transfer.network} ${transfer.txHash} not credited`);
      return;
    }
    if (checkout.rail !== 'crypto') {
      this.logger.error(`${transfer.network} ${transfer.txHash}: ${transfer.to} belongs to card checkout ${checkout.id}: not credited`);
      return;
    }
    if (checkout.simulated) {
      this.logger.warn(`${transfer.network} ${transfer.txHash}: a real transfer to simulated checkout ${checkout.id} is not credited`);
      return;
    }
    const decided = command(checkout.asset);
    if (decided === null) {
      this.logger.warn(`${transfer.network} ${transfer.txHash}: ${transfer.asset} sent to checkout ${checkout.id}, which quoted ${checkout.asset}: not credited`);
      return;
    }
    // A withdrawal ends what the reports of the transfer before it said. The chain may go back to
    // the very block the transfer was withdrawn from (a reorganisation undone, nodes behind one
    // URL that disagreed): the same hash, index and block, which must count again — with the
    // earlier reports' ids the store would take the new events for those already written and
    // drop them, and the payment on the chain would be lost to the books (Solana / Bitcoin
    // audit, 2026-11-28). So the ids also name how often the checkout had it withdrawn; a
    // report repeated without a withdrawal in between keeps its ids.
    const withdrawals = events.filter((e) => e.type === 'CheckoutTransferWithdrawn' && (e.data as { tx_hash?: unknown } | null)?.tx_hash === transfer.txHash).length;
    const key = `chain|${transfer.network}|${transfer.txHash}|${transfer.index}|${report}${withdrawals > 0 ? `|withdrawn-before:${withdrawals}` : ''}`;
    await this.process.decideAndSettle(
      { checkoutId: owner.checkoutId, command: decided },
      { now: await this.clock.now(owner.businessId), eventId: (i) => uuidv5(`${key}#${i}`), metadata: { causationId: key, actor: SYSTEM_ACTOR } },
    );
  }
}
