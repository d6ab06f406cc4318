import { Inject, Injectable } from '@nestjs/common';
import type { Decider } from '@lib/domain';
import { CommandRunner, EVENT_STORE, EventStore, WriteMeta, metadataFor } from '@lib/eventstore';
import type { BusinessState, DecideContext } from '../business.decider';
import type { BusinessEvent } from '../events';
import { BUSINESS_STREAM } from '../stream-categories';
import { BusinessRows } from '../views';
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

  /** `context`: default the time and new ids (decideContext); `newStream`: as RunOptions (a freshly minted business id). */
  async run<Command>(
    decider: Decider<Command, BusinessEvent, BusinessState, DecideContext>,
    businessId: string,
    command: Command,
    meta: WriteMeta,
    options: { context?: DecideContext; newStream?: boolean } = {},
  ): Promise<void> {
    await this.runner.run(decider, BUSINESS_STREAM.stream(businessId), command, { context: options.context ?? decideContext(), metadata: metadataFor(meta), newStream: options.newStream });
  }

  /** The business's rows as its stream now leaves them: a write's answer. */
  async rows(businessId: string): Promise<BusinessRows> {
    return BusinessRows.of(await this.store.readStream(BUSINESS_STREAM.stream(businessId)));
  }
}
