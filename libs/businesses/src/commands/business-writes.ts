import { Inject, Injectable } from '@nestjs/common';
import type { Decider } from '@lib/domain';
import { CommandRunner, EVENT_STORE, RunResult, EventStore, RecordedEvent, WriteMeta, metadataFor, readStreamOrEmpty } from '@lib/eventstore';
import type { BusinessState, DecideContext } from '../business.decider';
import type { BusinessEvent } from '../events';
import { DomainError } from '../domain-error';
import { ReferralCodeCommand, referralCodeDecider, referralCodeHolder } from '../referrals';
import { BUSINESS_STREAM, REFERRAL_CODE_STREAM, isBusinessId } from '../stream-categories';
import { Business, BusinessRows, businessView } from '../views';
import { decideContext } from './decide-context';

/**
 * The write path the business use cases share: decide on the business's stream and append at
 * the revision read (CommandRunner: retried on a conflict, then the read models waited for), with
 * the write's metadata; then the answer from the stream it appended to — the rows its events
 * leave (the projection's own fold), whatever the projection has reached.
 */
@Injectable()
export class BusinessWrites {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  /**
   * `context`: default the time and new ids (decideContext); `newStream`, `beforeAppend`,
   * `afterAppend`: as RunOptions (a freshly minted business id; what the attempt about to append
   * decided; what only the append that succeeded may do, e.g. e-mail the code it recorded). An id that is not a business id names no business: 404 not_found.
   */
  async run<Command>(
    decider: Decider<Command, BusinessEvent, BusinessState, DecideContext>,
    businessId: string,
    command: Command,
    meta: WriteMeta,
    options: { context?: DecideContext; newStream?: boolean; beforeAppend?: (events: readonly BusinessEvent[], state: BusinessState) => Promise<void>; afterAppend?: () => Promise<void> } = {},
  ): Promise<RunResult<BusinessEvent, BusinessState>> {
    if (!isBusinessId(businessId)) throw new DomainError('not_found', `No business ${businessId}.`);
    return this.runner.run(decider, BUSINESS_STREAM.stream(businessId), command, {
      context: options.context ?? decideContext(),
      metadata: metadataFor(meta),
      newStream: options.newStream,
      beforeAppend: options.beforeAppend,
      afterAppend: options.afterAppend ? () => options.afterAppend!() : undefined,
    });
  }

  /** The business's stream, read now. */
  readStream(businessId: string): Promise<RecordedEvent[]> {
    return this.read(BUSINESS_STREAM.stream(businessId));
  }

  private read(stream: string): Promise<RecordedEvent[]> {
    return readStreamOrEmpty(this.store, stream);
  }

  /**
   * Claims or releases a referral code on its own stream (`referral_code-<code>`); a code another
   * business holds is 409 referral_code_taken. No read model waited for: nothing reads claims but
   * this.
   */
  async referralCode(command: ReferralCodeCommand, meta: WriteMeta): Promise<void> {
    await this.runner.run(referralCodeDecider, REFERRAL_CODE_STREAM.stream(command.code), command, { context: undefined, metadata: metadataFor(meta), waitForReadModels: false });
  }

  /** The business holding a referral code (its stream), or null. */
  async referralCodeHolder(code: string): Promise<string | null> {
    return referralCodeHolder(await this.read(REFERRAL_CODE_STREAM.stream(code)));
  }

  /** The business's rows as its stream now leaves them: a write's answer. */
  async rows(businessId: string): Promise<BusinessRows> {
    return BusinessRows.of(await this.store.readStream(BUSINESS_STREAM.stream(businessId)));
  }

  /** The business as its stream now leaves it (after a write to it). */
  async business(businessId: string): Promise<Business> {
    return businessView((await this.rows(businessId)).businesses.get(businessId)!);
  }
}
