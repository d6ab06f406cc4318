import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { LimitStore, RedisLimitStore, ReserveResult, SqlLimitStore } from '@lib/limits';
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

  it('giveBack returns one take of each live window (never below 0, never into a window that ended) and keeps its end (2026-11-29)', async () => {
    const clock = testClock();
    const hour = { key: `${p}:g:{a}:hour`, limit: 2, windowMs: HOUR };
    const day = { key: `${p}:g:{a}:day`, limit: 5, windowMs: 24 * HOUR };
    expect(await store.take([hour, day], clock.now())).toEqual({ taken: true });
    expect(await store.take([hour, day], clock.now())).toEqual({ taken: true });
    expect((await store.take([hour, day], clock.now())).taken).toBe(false);
    clock.advance(MINUTE);
    await store.giveBack([hour.key, day.key], clock.now());
    expect(await store.read(hour.key, clock.now())).toEqual({ count: 1, windowEndsAt: testClock().now() + HOUR, lockedUntil: null });
    expect((await store.read(day.key, clock.now())).count).toBe(1);
    expect(await store.take([hour, day], clock.now())).toEqual({ taken: true }); // the given-back take is there again
    await store.giveBack([hour.key, day.key], clock.now());
    await store.giveBack([hour.key, day.key], clock.now());
    await store.giveBack([hour.key, day.key], clock.now());
    expect((await store.read(hour.key, clock.now())).count).toBe(0);
    await store.giveBack([`${p}:g:{never}:taken`], clock.now()); // nothing to give back: nothing happens
    expect((await store.read(`${p}:g:{never}:taken`, clock.now())).count).toBe(0);
    expect(await store.take([hour], clock.now())).toEqual({ taken: true });
    clock.advance(HOUR);
    await store.giveBack([hour.key], clock.now()); // its window ended: the next take starts a new one at 1
    expect(await store.take([hour], clock.now())).toEqual({ taken: true });
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

  describe('attempts in flight on a ladder (reserve, failed, succeeded, release)', () => {
    const LADDER = { every: 5, locksMs: [MINUTE, 5 * MINUTE] };
    const HOLD = 30_000;
    const reserved = (r: ReserveResult): string => {
      if (r.outcome !== 'reserved') throw new Error(`not reserved: ${JSON.stringify(r)}`);
      return r.hold;
    };

    it('20 concurrent reservations from two processes on a key with no failures: at most 5 slots, the rest busy', async () => {
      const clock = testClock();
      const key = `${p}:reserve:{a}`;
      const stores = [backend.store, backend.replica];
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 2].reserve(key, LADDER, HOLD, clock.now())));
      expect(results.filter((r) => r.outcome === 'reserved')).toHaveLength(5);
      expect(results.filter((r) => r.outcome === 'busy')).toHaveLength(15);
      expect(await store.read(key, clock.now())).toEqual({ count: 0, windowEndsAt: null, lockedUntil: null });
    });

    it('wrong answers free their slots and count; the 5th locks in the same step; nothing is reserved while locked', async () => {
      const clock = testClock();
      const key = `${p}:reserve:{b}`;
      const holds = await Promise.all(Array.from({ length: 5 }, () => store.reserve(key, LADDER, HOLD, clock.now()).then(reserved)));
      expect((await store.reserve(key, LADDER, HOLD, clock.now())).outcome).toBe('busy');
      const counts = await Promise.all(holds.map((hold, i) => (i % 2 ? backend.replica : store).failed(key, hold, LADDER, clock.now())));
      expect(counts.map((c) => c.count).sort()).toEqual([1, 2, 3, 4, 5]);
      expect(counts.find((c) => c.count === 5)!.lockedUntil).toBe(clock.now() + MINUTE);
      expect(counts.filter((c) => c.count < 5).every((c) => c.lockedUntil === null)).toBe(true);
      expect(await store.reserve(key, LADDER, HOLD, clock.now())).toEqual({ outcome: 'locked', state: { count: 5, windowEndsAt: null, lockedUntil: clock.now() + MINUTE } });
      // after the lock: 5 more slots up to the next step (10, which locks 5 minutes)
      clock.advance(MINUTE);
      const next = await Promise.all(Array.from({ length: 8 }, () => store.reserve(key, LADDER, HOLD, clock.now())));
      expect(next.filter((r) => r.outcome === 'reserved')).toHaveLength(5);
      for (const r of next) if (r.outcome === 'reserved') await store.failed(key, r.hold, LADDER, clock.now());
      expect(await store.read(key, clock.now())).toEqual({ count: 10, windowEndsAt: null, lockedUntil: clock.now() + 5 * MINUTE });
    });

    it('failures counted and slots in flight share the slots left before the next lock', async () => {
      const clock = testClock();
      const key = `${p}:reserve:{c}`;
      for (let i = 0; i < 3; i++) await store.failed(key, null, LADDER, clock.now());
      const results = await Promise.all(Array.from({ length: 6 }, () => store.reserve(key, LADDER, HOLD, clock.now())));
      expect(results.map((r) => r.outcome).sort()).toEqual(['busy', 'busy', 'busy', 'busy', 'reserved', 'reserved']);
      // refuseFrom caps the slots and refuses from that count on
      const capped = `${p}:reserve:{c2}`;
      const ladder = { ...LADDER, refuseFrom: 2 };
      const two = await Promise.all(Array.from({ length: 4 }, () => store.reserve(capped, ladder, HOLD, clock.now())));
      expect(two.filter((r) => r.outcome === 'reserved')).toHaveLength(2);
      for (const r of two) if (r.outcome === 'reserved') await store.failed(capped, r.hold, ladder, clock.now());
      clock.advance(24 * HOUR);
      expect(await store.reserve(capped, ladder, HOLD, clock.now())).toEqual({ outcome: 'locked', state: { count: 2, windowEndsAt: null, lockedUntil: null } });
    });

    it('a right answer frees its slot and clears the count; the other slots stay held; a released slot counts nothing', async () => {
      const clock = testClock();
      const key = `${p}:reserve:{d}`;
      await store.failed(key, null, LADDER, clock.now());
      const holds = await Promise.all(Array.from({ length: 4 }, () => store.reserve(key, LADDER, HOLD, clock.now()).then(reserved)));
      expect((await store.reserve(key, LADDER, HOLD, clock.now())).outcome).toBe('busy');
      await backend.replica.succeeded(key, holds[0]);
      expect(await store.read(key, clock.now())).toEqual({ count: 0, windowEndsAt: null, lockedUntil: null });
      // 3 still in flight: 2 slots left before the 5th
      const after = await Promise.all(Array.from({ length: 4 }, () => store.reserve(key, LADDER, HOLD, clock.now())));
      expect(after.filter((r) => r.outcome === 'reserved')).toHaveLength(2);
      await store.release(key, holds[1]);
      expect(await store.read(key, clock.now())).toEqual({ count: 0, windowEndsAt: null, lockedUntil: null });
      reserved(await store.reserve(key, LADDER, HOLD, clock.now()));
      expect((await store.reserve(key, LADDER, HOLD, clock.now())).outcome).toBe('busy');
    });

    it('a slot never ended (its process died) is freed when it expires, on the caller\'s clock', async () => {
      const clock = testClock();
      const key = `${p}:reserve:{e}`;
      for (let i = 0; i < 5; i++) reserved(await store.reserve(key, LADDER, HOLD, clock.now()));
      clock.advance(HOLD - 1);
      expect((await store.reserve(key, LADDER, HOLD, clock.now())).outcome).toBe('busy');
      clock.advance(1);
      const again = await Promise.all(Array.from({ length: 7 }, () => store.reserve(key, LADDER, HOLD, clock.now())));
      expect(again.filter((r) => r.outcome === 'reserved')).toHaveLength(5);
    });

    it('failed without a slot counts on the ladder as well: every 5th locks, the last lock for every step past the ladder, kept streaks forgotten', async () => {
      const clock = testClock();
      const key = `${p}:ladder:{f}`;
      const ladder = { ...LADDER, keepMs: HOUR };
      for (let i = 1; i <= 4; i++) expect(await store.failed(key, null, ladder, clock.now())).toEqual({ count: i, windowEndsAt: null, lockedUntil: null });
      expect((await store.failed(key, null, ladder, clock.now())).lockedUntil).toBe(clock.now() + MINUTE);
      for (let i = 6; i <= 9; i++) await store.failed(key, null, ladder, clock.now());
      expect((await store.failed(key, null, ladder, clock.now())).lockedUntil).toBe(clock.now() + 5 * MINUTE);
      for (let i = 11; i <= 14; i++) await store.failed(key, null, ladder, clock.now());
      expect((await store.failed(key, null, ladder, clock.now())).lockedUntil).toBe(clock.now() + 5 * MINUTE);
      clock.advance(HOUR);
      expect(await store.read(key, clock.now())).toEqual({ count: 0, windowEndsAt: null, lockedUntil: null });
    });
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
    await backend.store.reserve(`${p}:r`, { every: 5, locksMs: [MINUTE] }, 30_000, clock.now());
    const ttl = async (k: string) => admin.pttl(`${p}:${k}`);
    expect(await ttl('w')).toBeGreaterThan(HOUR - 5_000);
    expect(await ttl('w')).toBeLessThanOrEqual(HOUR);
    expect(await ttl('k')).toBeGreaterThan(2 * HOUR - 5_000);
    expect(await ttl('t')).toBeGreaterThan(24 * HOUR - 5_000);
    expect(await ttl('f')).toBe(-1);
    // a slot in flight expires with its hold
    expect(await ttl('r:holds')).toBeGreaterThan(30_000 - 5_000);
    expect(await ttl('r:holds')).toBeLessThanOrEqual(30_000);
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
