import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { LimitStore, RedisLimitStore, SqlLimitStore } from '@lib/limits';
import { TEST_REDIS_URL } from '../support/redis';
import { LimitsBackend, openBackend, testClock } from './backends';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe.each(['postgres', 'embedded', 'redis'] as const)('limit store: %s', (name) => {
  let backend: LimitsBackend;
  let store: LimitStore;
  let p: string;

  beforeAll(async () => {
    backend = await openBackend(name);
    store = backend.store;
  });
  afterAll(() => backend.close());
  beforeEach(() => {
    p = backend.prefix();
  });

  it('the factory picks the store of the configuration', () => {
    expect(store).toBeInstanceOf(name === 'redis' ? RedisLimitStore : SqlLimitStore);
  });

  it('a streak counts every hit until cleared, whatever the time', async () => {
    const clock = testClock();
    const key = `${p}:streak`;
    expect(await store.read(key, clock.now())).toEqual({ count: 0, windowEndsAt: null, lockedUntil: null });
    for (let i = 1; i <= 3; i++) expect((await store.hit(key, {}, clock.now())).count).toBe(i);
    clock.advance(400 * 24 * HOUR);
    expect(await store.read(key, clock.now())).toEqual({ count: 3, windowEndsAt: null, lockedUntil: null });
    await store.clear(key);
    expect((await store.read(key, clock.now())).count).toBe(0);
    expect((await store.hit(key, {}, clock.now())).count).toBe(1);
  });

  it('a kept streak is forgotten keepMs after its last hit', async () => {
    const clock = testClock();
    const key = `${p}:kept`;
    await store.hit(key, { keepMs: HOUR }, clock.now());
    clock.advance(HOUR - 1);
    expect((await store.hit(key, { keepMs: HOUR }, clock.now())).count).toBe(2);
    clock.advance(HOUR - 1);
    expect((await store.read(key, clock.now())).count).toBe(2);
    clock.advance(1);
    expect((await store.read(key, clock.now())).count).toBe(0);
    expect((await store.hit(key, { keepMs: HOUR }, clock.now())).count).toBe(1);
  });

  it('a fixed window restarts the count at 1 once it ended', async () => {
    const clock = testClock();
    const key = `${p}:window`;
    const first = await store.hit(key, { windowMs: HOUR }, clock.now());
    expect(first).toEqual({ count: 1, windowEndsAt: clock.now() + HOUR, lockedUntil: null });
    clock.advance(HOUR - 1);
    expect((await store.hit(key, { windowMs: HOUR }, clock.now())).count).toBe(2);
    clock.advance(1);
    expect((await store.read(key, clock.now())).count).toBe(0);
    const again = await store.hit(key, { windowMs: HOUR }, clock.now());
    expect(again).toEqual({ count: 1, windowEndsAt: clock.now() + HOUR, lockedUntil: null });
  });

  it('a lock holds until its time; a shorter lock never shortens it; the clock releases it', async () => {
    const clock = testClock();
    const key = `${p}:lock`;
    await store.hit(key, {}, clock.now());
    await store.lock(key, clock.now() + 5 * MINUTE, clock.now());
    await store.lock(key, clock.now() + MINUTE, clock.now());
    expect((await store.read(key, clock.now())).lockedUntil).toBe(clock.now() + 5 * MINUTE);
    expect((await store.hit(key, {}, clock.now())).lockedUntil).toBe(clock.now() + 5 * MINUTE);
    clock.advance(5 * MINUTE);
    const after = await store.read(key, clock.now());
    expect(after.lockedUntil! <= clock.now()).toBe(true);
    expect(after.count).toBe(2);
  });

  it('a lock outlives a kept streak: the counter is kept until the lock ends', async () => {
    const clock = testClock();
    const key = `${p}:lock-keep`;
    await store.hit(key, { keepMs: MINUTE }, clock.now());
    await store.lock(key, clock.now() + HOUR, clock.now());
    clock.advance(30 * MINUTE);
    expect(await store.read(key, clock.now())).toEqual({ count: 1, windowEndsAt: null, lockedUntil: clock.now() + 30 * MINUTE });
  });

  it('locking a counter that does not exist does nothing', async () => {
    const clock = testClock();
    await store.lock(`${p}:none`, clock.now() + HOUR, clock.now());
    expect(await store.read(`${p}:none`, clock.now())).toEqual({ count: 0, windowEndsAt: null, lockedUntil: null });
  });

  it('take spends every bucket or none, and says when the full one frees', async () => {
    const clock = testClock();
    const hour = { key: `${p}:t:{a}:hour`, limit: 2, windowMs: HOUR };
    const day = { key: `${p}:t:{a}:day`, limit: 3, windowMs: 24 * HOUR };
    expect(await store.take([hour, day], clock.now())).toEqual({ taken: true });
    clock.advance(MINUTE);
    expect(await store.take([hour, day], clock.now())).toEqual({ taken: true });
    expect(await store.take([hour, day], clock.now())).toEqual({ taken: false, retryAt: testClock().now() + HOUR });
    // the refused take spent nothing: the day bucket still has one left
    expect((await store.read(day.key, clock.now())).count).toBe(2);
    clock.advance(HOUR);
    expect(await store.take([hour, day], clock.now())).toEqual({ taken: true });
    expect(await store.take([hour, day], clock.now())).toEqual({ taken: false, retryAt: testClock().now() + 24 * HOUR });
    expect((await store.read(hour.key, clock.now())).count).toBe(1);
  });

  it('20 concurrent failures from two processes all count, each answer a distinct count', async () => {
    const clock = testClock();
    const key = `${p}:concurrent`;
    const stores = [backend.store, backend.replica];
    const counts = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2].hit(key, {}, clock.now()).then((s) => s.count)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await store.read(key, clock.now())).count).toBe(20);
  });

  it('20 concurrent takes of a budget of 5 from two processes: exactly 5 taken', async () => {
    const clock = testClock();
    const bucket = { key: `${p}:t:{b}:hour`, limit: 5, windowMs: HOUR };
    const stores = [backend.store, backend.replica];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2].take([bucket], clock.now())));
    expect(results.filter((r) => r.taken)).toHaveLength(5);
    expect((await store.read(bucket.key, clock.now())).count).toBe(5);
  });
});

describe('limit store: Redis key expiry collects garbage', () => {
  let backend: LimitsBackend;
  let admin: Redis;
  beforeAll(async () => {
    backend = await openBackend('redis');
    admin = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await admin.quit();
    await backend.close();
  });

  it('a window or kept streak expires with its end (counted from the caller\'s clock); a streak kept until cleared never does', async () => {
    const clock = testClock(Date.now() + 10 * 24 * HOUR);
    const p = backend.prefix();
    await backend.store.hit(`${p}:w`, { windowMs: HOUR }, clock.now());
    await backend.store.hit(`${p}:k`, { keepMs: MINUTE }, clock.now());
    await backend.store.lock(`${p}:k`, clock.now() + 2 * HOUR, clock.now());
    await backend.store.hit(`${p}:f`, {}, clock.now());
    await backend.store.take([{ key: `${p}:t`, limit: 3, windowMs: 24 * HOUR }], clock.now());
    const ttl = async (k: string) => admin.pttl(`${p}:${k}`);
    expect(await ttl('w')).toBeGreaterThan(HOUR - 5_000);
    expect(await ttl('w')).toBeLessThanOrEqual(HOUR);
    expect(await ttl('k')).toBeGreaterThan(2 * HOUR - 5_000);
    expect(await ttl('t')).toBeGreaterThan(24 * HOUR - 5_000);
    expect(await ttl('f')).toBe(-1);
  });
});

describe.each(['postgres', 'embedded'] as const)('limit store: %s purges forgotten rows', (name) => {
  let backend: LimitsBackend;
  beforeAll(async () => {
    backend = await openBackend(name);
  });
  afterAll(() => backend.close());

  it('deletes rows past their expiry, keeps live ones and streaks kept until cleared', async () => {
    const clock = testClock();
    const store = backend.store as SqlLimitStore;
    const p = backend.prefix();
    await store.hit(`${p}:w`, { windowMs: HOUR }, clock.now());
    await store.hit(`${p}:k`, { keepMs: 3 * HOUR }, clock.now());
    await store.hit(`${p}:f`, {}, clock.now());
    clock.advance(2 * HOUR);
    expect(await store.purgeExpired(clock.now())).toBe(1);
    expect((await store.read(`${p}:k`, clock.now())).count).toBe(1);
    clock.advance(400 * 24 * HOUR);
    expect(await store.purgeExpired(clock.now())).toBe(1);
    expect((await store.read(`${p}:f`, clock.now())).count).toBe(1);
  });
});

describe('limit store: Redis unreachable', () => {
  it('fails closed: the operation rejects (the caller answers it as a store failure), it never allows silently', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const store = new RedisLimitStore(`redis://127.0.0.1:${port}`);
    try {
      await expect(store.hit('test-limits:unreachable', {}, Date.now())).rejects.toThrow();
      await expect(store.take([{ key: 'test-limits:unreachable:t', limit: 5, windowMs: 1000 }], Date.now())).rejects.toThrow();
    } finally {
      await store.close();
    }
  });
});
