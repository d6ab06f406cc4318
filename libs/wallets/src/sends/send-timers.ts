import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { family } from '@lib/chains';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { Refusal } from '@lib/domain';
import { SYSTEM_ACTOR } from '@lib/eventstore';
import { PollLoop, Timer, TimerRunner, TimerStore } from '@lib/timers';
import { WalletAddresses } from '../addresses';
import type { WalletTransactionRecordedData } from './events';
import { WALLET_CHANGE_TIMER, WalletChanges } from '../changes/wallet-changes';
import { WalletRelay } from './relay';
import { WalletSends } from './wallet-sends';
import { WalletTransactionsReadModel } from './wallet-transactions.read-model';
import { isFinal } from './wallet-transaction.decider';

/** The durable timer that settles a simulated business's send (decision 0040). */
export const WALLET_SEND_TIMER = 'wallet_transaction.simulated_settle';
/** A simulated signed send confirms, and a simulated external record fails, this long after it is recorded (business time). */
export const SIMULATED_SEND_SETTLE_MS = 60_000;
/**
 * A hold neither recorded nor released this long after it was taken was left by a crash between
 * the hold and the record (a request's relay takes at most two node timeouts of 10 s): the node
 * says whether the relay happened. Longer than a Solana blockhash lives (about 90 s), so a
 * transaction the node does not know by then can no longer land.
 */
export const STALE_RESERVATION_MS = 120_000;

/**
 * Schedules what settles a recorded send: on a simulated business a durable timer in its own time
 * (its test clock): a signed send confirms, an external record — a hash no simulated chain can
 * prove — fails (§3). A live business's sends are settled by the receipt poll of WalletSendsWorker.
 */
@Injectable()
export class WalletSendTimers {
  private readonly timers: TimerStore;

  constructor(@Inject(DATABASE) private readonly db: Database) {
    this.timers = new TimerStore(db);
  }

  /**
   * A business's own time (decision 0010): wall time plus its test clock's offset, as BusinessClock
   * answers it (libs/payments, which imports this library, so the same TimerStore clock here). A
   * simulated business's send is recorded at this time, as its settle timer, payments, wallet
   * changes and timelines are.
   */
  now(businessId: string): Promise<Date> {
    return this.timers.clock.now(businessId);
  }

  /** Schedules the settle of a simulated business's send `SIMULATED_SEND_SETTLE_MS` after `at`, the business time it was recorded at (else its clock's now). */
  async recorded(data: WalletTransactionRecordedData, at?: Date): Promise<void> {
    if (data.mode !== 'test') return;
    const now = (at ?? (await this.now(data.business_id))).getTime();
    await this.timers.schedule({
      id: `${WALLET_SEND_TIMER}:${data.wallet_transaction_id}`,
      businessId: data.business_id,
      kind: WALLET_SEND_TIMER,
      subject: data.wallet_transaction_id,
      payload: { wallet_id: data.wallet_id, kind: data.kind },
      dueAt: new Date(now + SIMULATED_SEND_SETTLE_MS),
    });
  }
}

/**
 * The background work of wallet sends (not in the API-only role): the simulated settle timers (and
 * the apply timers of pending wallet deletions, decision 0041), and
 * a poll of the live sends still pending — each one's receipt from its network's node (decision
 * 0040: a receipt poll rather than the watchers, which follow only the wallet's receiving
 * addresses) → confirmed, or failed when it reverted, once its block is final (the confirmations
 * incoming transfers need; until then, and when a reorganisation removes it, it stays pending);
 * an external record is matched against the chain (sender, recipient, asset, amount) and fails on
 * a mismatch.
 */
@Injectable()
export class WalletSendsWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private runner: TimerRunner | null = null;
  private poll: PollLoop | null = null;
  private readonly logger = new Logger('wallet-sends');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    private readonly sends: WalletSends,
    private readonly read: WalletTransactionsReadModel,
    private readonly relay: WalletRelay,
    private readonly changes: WalletChanges,
    private readonly wallets: WalletAddresses,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    const runner = new TimerRunner(new TimerStore(this.db), {
      pollMs: 250,
      batchSize: 10,
      onError: (error, timer) => this.logger.warn(`timer ${timer?.id ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`),
    });
    runner.on(WALLET_SEND_TIMER, (timer) => this.settleSimulated(timer));
    // a pending wallet deletion takes effect at its effective_at (decision 0041)
    runner.on(WALLET_CHANGE_TIMER, (timer) => this.changes.apply(timer.businessId, timer.subject, timer.dueAt, timer.id));
    runner.start();
    this.runner = runner;
    this.poll = new PollLoop(async () => {
      try {
        await this.pollLive();
      } catch (error) {
        this.logger.warn(`receipt poll: ${error instanceof Error ? error.message : String(error)}`);
      }
    }, this.config.chainPollMs);
    this.poll.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
    await this.poll?.stop();
  }

  private async settleSimulated(timer: Timer): Promise<void> {
    const { wallet_id: walletId, kind } = timer.payload as { wallet_id: string; kind: string };
    const meta = { actor: SYSTEM_ACTOR, causationId: `timer:${timer.id}` };
    const command =
      kind === 'external'
        ? { type: 'FailWalletTransaction' as const, walletTransactionId: timer.subject, reason: 'No transaction with this hash reached the simulated network.' }
        : { type: 'ConfirmWalletTransaction' as const, walletTransactionId: timer.subject, feeUnits: null, block: null };
    try {
      await this.sends.decide(walletId, command, meta, timer.dueAt);
    } catch (error) {
      if (error instanceof Refusal) return; // settled already
      throw error;
    }
  }

  /**
   * Holds a crash left between the hold and the record: the node knows the transaction → it was
   * relayed, record it (the poll then confirms it); the node does not know it → it never was,
   * release the hold (the hash is free again: the dashboard may send it anew); the node cannot
   * tell → next round.
   */
  async settleStaleReservations(): Promise<void> {
    for (const data of await this.read.staleReservations(new Date(Date.now() - STALE_RESERVATION_MS))) {
      const known = await this.relay.known(data.network, data.tx_hash);
      if (known === null) continue;
      const meta = { actor: SYSTEM_ACTOR, causationId: `stale-reservation:${data.wallet_transaction_id}` };
      if (known) await this.sends.decide(data.wallet_id, { type: 'RecordWalletTransaction', data, funds: null }, meta);
      else await this.sends.decide(data.wallet_id, { type: 'ReleaseWalletSend', walletTransactionId: data.wallet_transaction_id, reason: 'not relayed (a hold left by an interrupted send)' }, meta);
    }
  }

  /**
   * The addresses an external record may be sent from: the wallet's addresses of the family that
   * checkouts reserved, and on Solana the wallet's own address (an external wallet's
   * `solana_address`, which never receives through checkouts: decision 0024).
   */
  private async senders(tx: { walletId: string; businessId: string; network: Parameters<typeof family>[0] }): Promise<string[]> {
    const from = await this.sends.addresses(tx.walletId, family(tx.network));
    if (family(tx.network) === 'solana') {
      const wallet = await this.wallets.wallet(tx.businessId);
      if (wallet?.wallet_id === tx.walletId && wallet.solana && 'address' in wallet.solana) from.push(wallet.solana.address);
    }
    return from;
  }

  /**
   * A pending signed send its node forgot (WalletRelay.forgotten): relayed again while it can still
   * land, `never_lands` once it cannot (EVM: its nonce used; Solana: its blockhash expired). Its
   * record's raw transaction is read only when the node no longer knows it.
   */
  private async forgotten(tx: { walletId: string; id: string; network: Parameters<typeof family>[0]; txHash: string }) {
    const raw = async () => (await this.sends.state(tx.walletId)).transactions.get(tx.id)?.data.raw ?? null;
    const found = await this.relay.forgotten(tx.network, tx.txHash, raw);
    if (found?.fate === 'relayed_again') this.logger.log(`wallet transaction ${tx.id}: its node no longer knew ${tx.txHash} and it can still land; its signed bytes were relayed again`);
    return found;
  }

  /** One round of the live receipt poll. */
  async pollLive(): Promise<void> {
    await this.settleStaleReservations();
    for (const tx of await this.read.pending()) {
      if (tx.mode !== 'live') continue;
      const outcome =
        tx.origin === 'external'
          ? await this.relay.matchExternal(tx.network, tx.txHash, { asset: tx.asset, units: BigInt(tx.units), to: tx.toAddress, from: await this.senders(tx) })
          : await this.relay.outcome(tx.network, tx.txHash);
      const meta = { actor: SYSTEM_ACTOR };
      if (outcome.status === 'pending') {
        // a signed send its node forgot (dropped, or its block reorganised away): relayed again while it can still land
        // (decision 0040 addendum, 2026-11-28, later); once it cannot (EVM: another transaction used its nonce; Solana: its
        // blockhash expired) it fails (§3: pending → failed) and its hold is given back
        const found = tx.origin === 'signed' ? await this.forgotten(tx) : null;
        if (found?.fate === 'never_lands') await this.sends.decide(tx.walletId, { type: 'FailWalletTransaction', walletTransactionId: tx.id, reason: found.reason }, meta);
        continue;
      }
      // mined in a block not final yet: read again next round (the decider holds the same rule; skipping here spares the
      // stream read and the rate look-up). A reorganisation that removes it meanwhile finds no receipt: still pending.
      if (outcome.confirmations !== undefined && !isFinal(tx.network, outcome.confirmations)) continue;
      // a signed send's fee as the chain charged it, confirmed or failed on the chain (a reverted send pays it too: 0040
      // addendum, 2026-11-28, later), in USD at the fee coin's rate of that time (POL too: addendum of 2026-11-29); no
      // fresh rate → null, and the projection keeps what the send recorded
      const feeUnits = tx.origin === 'signed' ? (outcome.feeUnits ?? null) : null;
      const networkFeeUsd = feeUnits !== null ? await this.sends.rates.feeUsd(false, tx.network, BigInt(feeUnits)) : null;
      if (outcome.status === 'confirmed') {
        // an external record's amount at the rate of the confirmation
        const valueUsd = tx.origin === 'external' ? await this.sends.rates.valueUsd(false, tx.asset, BigInt(tx.units)) : null;
        await this.sends.decide(tx.walletId, { type: 'ConfirmWalletTransaction', walletTransactionId: tx.id, feeUnits: outcome.feeUnits, block: outcome.block, valueUsd, networkFeeUsd, confirmations: outcome.confirmations }, meta);
      }
      else await this.sends.decide(tx.walletId, { type: 'FailWalletTransaction', walletTransactionId: tx.id, reason: outcome.reason, feeUnits, networkFeeUsd, ...(outcome.confirmations !== undefined ? { confirmations: outcome.confirmations } : {}) }, meta);
    }
  }
}
