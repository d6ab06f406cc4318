import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { ReadAllOptions, RecordedEvent } from '@lib/eventstore';
import { PollingSubscription } from '../../libs/eventstore/src/polling-subscription';

const recorded = (n: number): RecordedEvent => ({
  id: randomUUID(),
  type: 'T',
  data: {},
  metadata: {},
  stream: `s-${n}`,
  revision: 0,
  position: { commit: BigInt(n), prepare: BigInt(n) },
  recordedAt: new Date(),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A log of `events` read through a counting readAll, and its append signal. */
function log(events: RecordedEvent[]) {
  const reads: (bigint | null)[] = [];
  const store = {
    readAll: async ({ after, maxCount }: ReadAllOptions) => {
      reads.push(after?.prepare ?? null);
      const from = after ? events.findIndex((e) => e.position.prepare === after.prepare) + 1 : 0;
      return events.slice(from, from + (maxCount ?? 1000));
    },
  };
  return { store, reads, appended: new EventEmitter() };
}

describe('PollingSubscription: a short batch (given a log, when a subscription reads less than a page)', () => {
  const options = { after: null, batchSize: 10, pollIntervalMs: 60_000, onReadError: () => undefined };

  it('waits for the next append instead of reading again at once when nothing was appended meanwhile', async () => {
    const events = [recorded(1), recorded(2)];
    const { store, reads, appended } = log(events);
    const seen: RecordedEvent[] = [];
    const subscription = new PollingSubscription(store, appended, async (batch) => void seen.push(...batch), options);
    try {
      await subscription.caughtUp;
      await sleep(50);
      expect(seen).toHaveLength(2);
      expect(reads).toEqual([null]); // one read: the short batch was everything the log showed

      events.push(recorded(3));
      appended.emit('append', events[2].position);
      const deadline = Date.now() + 5_000;
      while (seen.length < 3 && Date.now() < deadline) await sleep(5);
      expect(seen.map((e) => e.stream)).toEqual(['s-1', 's-2', 's-3']);
      expect(reads).toEqual([null, 2n]);
    } finally {
      await subscription.stop();
    }
  });

  it('reads again at once when an append came while the batch was handled', async () => {
    const events = [recorded(1)];
    const { store, reads, appended } = log(events);
    const seen: RecordedEvent[] = [];
    const subscription = new PollingSubscription(
      store,
      appended,
      async (batch) => {
        seen.push(...batch);
        if (events.length === 1) {
          events.push(recorded(2)); // appended while this batch is handled: no one is sleeping to hear it
          appended.emit('append', events[1].position);
        }
      },
      options,
    );
    try {
      const deadline = Date.now() + 5_000;
      while (seen.length < 2 && Date.now() < deadline) await sleep(5);
      expect(seen.map((e) => e.stream)).toEqual(['s-1', 's-2']);
      expect(reads.slice(0, 2)).toEqual([null, 1n]);
    } finally {
      await subscription.stop();
    }
  });
});
