import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLimitStore, LimitStore, RedisLimitStore, SqlLimitStore } from '@lib/limits';
import { migratedDatabaseWithReplica } from '../support/postgres';
import { TEST_REDIS_URL } from '../support/redis';
import { migratedEmbedded } from '../support/embedded';

/** A limits store on one backend, and a second store on the same data (another process's). */
export interface LimitsBackend {
  name: 'postgres' | 'embedded' | 'redis';
  store: LimitStore;
  /** Another store over the same data: a second replica (PostgreSQL: its own pool; Redis: its own client). */
  replica: LimitStore;
  /** A key prefix no other test uses. */
  prefix(): string;
  close(): Promise<void>;
}

let counter = 0;
const RUN = `test-limits:${process.pid}:${randomUUID()}`;

export async function openBackend(name: LimitsBackend['name']): Promise<LimitsBackend> {
  const prefix = () => `${RUN}:${++counter}`;
  if (name === 'postgres') {
    const { db, second, close } = await migratedDatabaseWithReplica('limits', 25);
    return { name, store: createLimitStore({ db }), replica: new SqlLimitStore(second), prefix, close };
  }
  if (name === 'embedded') {
    const { db, close } = await migratedEmbedded();
    const store = createLimitStore({ db });
    return { name, store, replica: store, prefix, close };
  }
  const store = createLimitStore({ redisUrl: TEST_REDIS_URL, db: undefined as never });
  const replica = new RedisLimitStore(TEST_REDIS_URL);
  const admin = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  return {
    name,
    store,
    replica,
    prefix,
    close: async () => {
      let cursor = '0';
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', `${RUN}:*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await admin.del(...keys);
      } while (cursor !== '0');
      await store.close();
      await replica.close();
      await admin.quit();
    },
  };
}

/** A clock the test moves: `time` is the TimeSource, `advance` moves it. Never a sleep. */
export function testClock(start = Date.parse('2026-11-27T12:00:00.000Z')) {
  let now = start;
  return {
    time: () => new Date(now),
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}
