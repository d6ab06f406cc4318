import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Database, Sql } from '@lib/database';
import { DomainRefusal } from '@lib/domain';
import { CommandRunner, RunResult, SYSTEM_ACTOR, WriteMeta, metadataFor } from '@lib/eventstore';
import { readLinkToken } from '@lib/http';
import { TimerStore, clockOffsetMs } from '@lib/timers';
import type { WalletEvent } from '../events';
import { WALLET_STREAM, isBusinessIdOfWallet } from '../stream-categories';
import { WalletChangeState, WalletCommand, WalletState, walletDecider } from '../wallet.decider';
import { WalletAddresses } from '../addresses';

/** The durable timer that applies a pending wallet deletion at its effective_at (business time). */
export const WALLET_CHANGE_TIMER = 'wallet_change.apply';
export const walletChangeTimerId = (changeId: string): string => `${WALLET_CHANGE_TIMER}:${changeId}`;

/** The wallet change object (spec §2 `wallet_change`; decision 0041). */
export interface WalletChangeView {
  kind: 'wallet_change';
  id: string;
  change: 'delete';
  /** pending, then canceled or applied (the spec shows `pending`; the other two are ours). */
  status: WalletChangeState['status'];
  wallet_id: string;
  effective_at: string;
  canceled_at: string | null;
  created_at: string;
}

export function walletChangeView(change: WalletChangeState): WalletChangeView {
  return { kind: 'wallet_change', id: change.id, change: 'delete', status: change.status, wallet_id: change.walletId, effective_at: change.effectiveAt, canceled_at: change.canceledAt, created_at: change.requestedAt };
}

/** The business and hash a cancel link's token names (decision 0041: newLinkToken of the business id, its hash stored in WalletDeletionRequested), or null for anything malformed. */
export function readCancelToken(token: unknown): { businessId: string; hash: string } | null {
  const named = readLinkToken(token, isBusinessIdOfWallet);
  return named && { businessId: named.id, hash: named.hash };
}

/**
 * What the wallet-change use cases share: the business's time (its test clock), the wallet
 * stream's state, deciding and appending through the CommandRunner, the apply timer.
 */
@Injectable()
export class WalletChanges {
  readonly timers: TimerStore;

  constructor(
    private readonly runner: CommandRunner,
    private readonly addresses: WalletAddresses,
    @Inject(DATABASE) private readonly db: Database,
  ) {
    this.timers = new TimerStore(db);
  }

  /** The business's now: wall time plus its test clock's offset. */
  async now(businessId: string): Promise<Date> {
    return new Date(Date.now() + (await clockOffsetMs(this.db, businessId)));
  }

  state(businessId: string): Promise<WalletState> {
    return this.addresses.state(businessId);
  }

  run(
    businessId: string,
    command: WalletCommand,
    meta: WriteMeta,
    options: { beforeAppend?: (events: readonly WalletEvent[]) => Promise<void>; afterAppend?: () => Promise<void>; eventId?: (i: number) => string } = {},
  ): Promise<RunResult<WalletEvent, WalletState>> {
    return this.runner.run(walletDecider, WALLET_STREAM.stream(businessId), command, {
      context: undefined,
      metadata: metadataFor(meta),
      beforeAppend: options.beforeAppend ? (events) => options.beforeAppend!(events) : undefined,
      afterAppend: options.afterAppend ? () => options.afterAppend!() : undefined,
      eventId: options.eventId,
    });
  }

  /** A change of the business by id, as its view (404 not_found when there is none). */
  static changeOf(state: WalletState, changeId: string): WalletChangeView {
    const change = state.changes?.[changeId];
    if (!change) throw new DomainRefusal('not_found', 'No wallet change with this id.');
    return walletChangeView(change);
  }

  /** The apply timer fired: the pending deletion removes the wallet (a canceled or applied change: nothing). */
  async apply(businessId: string, changeId: string, dueAt: Date, timerId: string): Promise<void> {
    await this.run(businessId, { type: 'ApplyWalletChange', businessId, changeId, at: dueAt.toISOString() }, { actor: SYSTEM_ACTOR, causationId: `timer:${timerId}` });
  }

  /** Schedules the apply timer of a pending change (idempotent per change). */
  async scheduleApply(businessId: string, changeId: string, effectiveAt: string, sql?: Sql): Promise<void> {
    await this.timers.schedule({ id: walletChangeTimerId(changeId), businessId, kind: WALLET_CHANGE_TIMER, subject: changeId, dueAt: new Date(effectiveAt) }, sql);
  }
}
