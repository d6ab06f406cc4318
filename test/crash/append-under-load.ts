/**
 * Child process of the crash test: appends under load and reports every acknowledged append
 * on stdout ("ack <stream> <revision> <id,id,…>"), while the projections run beside it,
 * until it is killed. Configured like the service (DATABASE_URL or DATA_DIR).
 */
import { randomUUID } from 'node:crypto';
import { ConcurrencyError, StreamNotFoundError, openEventStore } from '@lib/eventstore';
import { ProjectionRunner, streamCatalogProjector } from '@lib/projections';

async function main(): Promise<void> {
  const opened = await openEventStore({ databaseUrl: process.env.DATABASE_URL, dataDir: process.env.DATA_DIR });
  const runner = new ProjectionRunner(opened.store, opened.db, [streamCatalogProjector], { batchSize: 7 });
  await runner.start();
  const writers = Number(process.env.WRITERS ?? 4);
  const round = process.env.ROUND ?? '0';
  process.stdout.write('ready\n');
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const stream = `crash-w${w}`; // the same streams every round: a restarted writer continues them
      let revision: number | 'no_stream';
      try {
        const [last] = await opened.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
        revision = last.revision;
      } catch (error) {
        if (!(error instanceof StreamNotFoundError)) throw error;
        revision = 'no_stream';
      }
      for (let i = 0; ; i++) {
        const events = Array.from({ length: 1 + (i % 3) }, (_, k) => ({
          id: randomUUID(),
          type: 'LoadEvent',
          data: { round, writer: w, i, k, text: 'naïve café ✓' },
        }));
        try {
          const result = await opened.store.append(stream, events, revision);
          revision = result.nextExpectedRevision;
          process.stdout.write(`ack ${stream} ${revision} ${events.map((e) => e.id).join(',')}\n`);
        } catch (error) {
          if (!(error instanceof ConcurrencyError)) throw error;
          revision = typeof error.actual === 'number' ? error.actual : 'no_stream';
        }
      }
    }),
  );
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : error}\n`);
  process.exit(1);
});
