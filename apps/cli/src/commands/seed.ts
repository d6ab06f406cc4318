import { randomUUID } from 'node:crypto';
import { EventStore } from '@lib/eventstore';
import { ProgressBar } from '../output';

/**
 * `dev seed`: fills the store with synthetic payment-like streams, for trying the CLI,
 * rebuilds and benchmarks on a store of a known size.
 */
export async function seed(store: EventStore, streams: number, eventsPerStream: number, out: (line: string) => void): Promise<void> {
  const bar = new ProgressBar('seed');
  const started = Date.now();
  const total = streams * eventsPerStream;
  const prefix = randomUUID().slice(0, 8);
  let done = 0;
  const types = ['PaymentCreated', 'CheckoutOpened', 'TransferDetected', 'ConfirmationObserved', 'PaymentSucceeded'];
  for (let s = 0; s < streams; s++) {
    const stream = `payment-seed${prefix}${s}`;
    const events = Array.from({ length: eventsPerStream }, (_, i) => ({
      id: randomUUID(),
      type: types[Math.min(i, types.length - 1)],
      data: { payment_id: `pmt_seed${prefix}${s}`, amount: String(1000 + s), currency: 'USD', step: i },
      metadata: { correlationId: `seed-${prefix}`, actor: { kind: 'system', id: null, name: 'seed' } },
    }));
    for (let i = 0; i < events.length; i += 100) {
      await store.append(stream, events.slice(i, i + 100), i === 0 ? 'no_stream' : i - 1);
    }
    done += eventsPerStream;
    bar.update(done, total, Date.now() - started);
  }
  bar.finish(done, Date.now() - started);
  out(`seeded ${streams} streams, ${total} events (streams payment-seed${prefix}0 …)`);
}
