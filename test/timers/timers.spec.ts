import { randomUUID } from 'node:crypto';
import { Database, Sql, connectPostgres, migrate, openEmbedded } from '@lib/database';
import { SystemClock, Timer, TimerRunner, TimerStore } from '../../libs/timers/src';
import { createTestDatabase } from '../support/postgres';
import { tempDir } from '../support/temp-dir';

interface Backend {
  kind: 'postgres' | 'embedded';
  /** Opens (or reopens, after a restart) the database, migrated. */
  open(): Promise<Database>;
  /** Opens a second connection to the same database, as another worker process would. */
  second?: () => Promise<Database>;
  cleanup(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A wall time the test moves by hand. */
function manualTime(start = Date.now()) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => void (t += ms) };
}

/** A business's due timers claimed as the test clock's advance does: one at a time, each claim marking the previous one fired; `fire` runs before the next claim. */
async function claimOneByOne(store: TimerStore, kind: string, businessId: string, fire: (timer: Timer) => Promise<void> = async () => undefined): Promise<Timer[]> {
  const claimed: Timer[] = [];
  for (;;) {
    const [timer] = await store.claimDue(1, 30_000, [kind], businessId, claimed[claimed.length - 1]?.id);
    if (!timer) return claimed;
    claimed.push(timer);
    await fire(timer);
  }
}

function timersContract(backend: () => Backend): void {
  let b: Backend;
  let db: Database;
  const runners: TimerRunner[] = [];
  const extraDbs: Database[] = [];
  const unique = (prefix: string) => `${prefix}_${randomUUID().slice(0, 8)}`;
  const runner = (store: TimerStore, options: ConstructorParameters<typeof TimerRunner>[1] = {}) => {
    const r = new TimerRunner(store, options);
    runners.push(r);
    return r;
  };

  /** A store on a wall time the test moves by hand, a fresh timer kind (`kindPrefix`_…) and business, and `at(s)`: `s` seconds from the wall time now. */
  const onManualTime = (kindPrefix: string) => {
    const time = manualTime();
    const store = new TimerStore(db, { now: time.now });
    return { time, store, kind: unique(kindPrefix), biz: unique('biz'), at: (s: number) => new Date(time.now().getTime() + s * 1000) };
  };

  beforeAll(async () => {
    b = backend();
    db = await b.open();
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await Promise.all(extraDbs.map((d) => d.close()));
    await db?.close();
    await b?.cleanup();
  });

  it('scheduling twice with one id keeps one row (the first)', async () => {
    const store = new TimerStore(db);
    const id = unique('t');
    const dueAt = new Date(Date.now() + 60_000);
    expect(await store.schedule({ id, businessId: 'biz', kind: 'k', subject: 'pay_1', payload: { n: 1 }, dueAt })).toBe(true);
    expect(await store.schedule({ id, businessId: 'biz', kind: 'k', subject: 'pay_1', payload: { n: 2 }, dueAt: new Date() })).toBe(false);
    const { rows } = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM timers WHERE id = $1`, [id]);
    expect(rows[0].n).toBe('1');
    expect(await store.get(id)).toMatchObject({ id, status: 'scheduled', attempts: 0, payload: { n: 1 }, dueAt });
  });

  it('a timer fires once when due and not before', async () => {
    const { time, store, kind } = onManualTime('once');
    const calls: Timer[] = [];
    const r = runner(store).on(kind, (t) => void calls.push(t));
    const id = unique('t');
    await store.schedule({ id, businessId: unique('biz'), kind, subject: 'quote_1', payload: { quote: 'q1' }, dueAt: new Date(time.now().getTime() + 5000) });

    expect(await r.runDue()).toBe(0);
    time.advance(4999);
    expect(await r.runDue()).toBe(0);
    time.advance(1);
    expect(await r.runDue()).toBe(1);
    expect(await r.runDue()).toBe(0);
    time.advance(60_000);
    expect(await r.runDue()).toBe(0);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ id, kind, subject: 'quote_1', payload: { quote: 'q1' }, attempts: 1 });
    expect(await store.get(id)).toMatchObject({ status: 'fired', firedAt: expect.any(Date), lockedUntil: null });
  });

  it("advancing one business's clock by 900 s fires its 15-minute timer at once, not another business's", async () => {
    const store = new TimerStore(db);
    const clock = new SystemClock(db);
    const kind = unique('expiry');
    const [a, other] = [unique('biz_a'), unique('biz_b')];
    const fired: string[] = [];
    const r = runner(store).on(kind, (t) => void fired.push(t.businessId));
    for (const businessId of [a, other]) {
      const now = await clock.now(businessId);
      await store.schedule({ id: `${kind}:${businessId}`, businessId, kind, subject: 'pay', dueAt: new Date(now.getTime() + 15 * 60_000) });
    }
    expect(await r.runDue()).toBe(0);

    const before = await clock.now(a);
    const after = await store.advanceClock(a, 900);
    expect(after.getTime() - before.getTime()).toBeGreaterThanOrEqual(900_000);
    expect((await clock.now(a)).getTime() - Date.now()).toBeGreaterThanOrEqual(899_000);
    expect(Math.abs((await clock.now(other)).getTime() - Date.now())).toBeLessThan(1000);

    expect(await r.runDue()).toBe(1);
    expect(fired).toEqual([a]);
    expect(await store.get(`${kind}:${a}`)).toMatchObject({ status: 'fired' });
    expect(await store.get(`${kind}:${other}`)).toMatchObject({ status: 'scheduled', attempts: 0 });
    // The offset adds up.
    const later = await store.advanceClock(a, 60);
    expect(later.getTime() - Date.now()).toBeGreaterThanOrEqual(959_000);
    await expect(store.advanceClock(a, -1)).rejects.toThrow(RangeError);
  });

  it('timers scheduled already due by an advanced clock fire in due order within one runDue (chained timers too)', async () => {
    const store = new TimerStore(db);
    const biz = unique('biz');
    const kinds = { arrival: unique('arrival'), confirm: unique('confirm'), expiry: unique('expiry') };
    const order: string[] = [];
    const now = await store.clock.now(biz);
    const r = runner(store)
      .on(kinds.arrival, async (t) => {
        order.push('arrival');
        // The arrival schedules the confirmation 30 s later, already due on the advanced clock.
        await store.schedule({ id: `${t.id}:confirm`, businessId: biz, kind: kinds.confirm, subject: t.subject, dueAt: new Date(t.dueAt.getTime() + 30_000) });
      })
      .on(kinds.confirm, () => void order.push('confirm'))
      .on(kinds.expiry, () => void order.push('expiry'));
    await store.schedule({ id: unique('t'), businessId: biz, kind: kinds.expiry, subject: 'pay', dueAt: new Date(now.getTime() + 900_000) });
    await store.schedule({ id: unique('t'), businessId: biz, kind: kinds.arrival, subject: 'pay', dueAt: new Date(now.getTime() + 20_000) });
    await store.advanceClock(biz, 20);
    expect(await r.runDue()).toBe(1);
    await store.advanceClock(biz, 900);
    expect(await r.runDue()).toBe(2);
    expect(order).toEqual(['arrival', 'confirm', 'expiry']);
  });

  it('scheduleMany writes every timer in one statement of one text, each idempotent per id (the first kept), and they fire in due order', async () => {
    const { time, store, kind, biz, at } = onManualTime('many');
    const statements: { text: string; name?: string }[] = [];
    const counted: Sql = {
      query: (text, params, name) => {
        statements.push({ text, name });
        return db.query(text, params, name);
      },
      exec: (script) => db.exec(script),
    };
    const [late, early, middle] = [unique('late'), unique('early'), unique('middle')];
    await store.schedule({ id: middle, businessId: biz, kind, subject: 'stored', dueAt: at(10) });
    const created = await store.scheduleMany(
      [
        { id: late, businessId: biz, kind, subject: 's', payload: { n: 1, nested: { a: [1, 'x'] } }, dueAt: at(20) },
        { id: early, businessId: biz, kind, subject: 's', dueAt: at(5) },
        { id: middle, businessId: biz, kind, subject: 'not stored', dueAt: at(1) }, // stored already: kept as it is
        { id: late, businessId: biz, kind, subject: 'not stored', dueAt: at(2) }, // repeated: the first wins
      ],
      counted,
    );
    expect(created).toBe(2);
    expect(statements).toHaveLength(1);
    expect(await store.get(late)).toMatchObject({ subject: 's', payload: { n: 1, nested: { a: [1, 'x'] } }, dueAt: at(20), status: 'scheduled', attempts: 0, createdAt: time.now() });
    expect(await store.get(early)).toMatchObject({ subject: 's', payload: {}, dueAt: at(5) });
    expect(await store.get(middle)).toMatchObject({ subject: 'stored', dueAt: at(10) });

    // three more timers: the same statement text (the embedded store prepares it once)
    const more = [unique('a'), unique('b'), unique('c')];
    expect(await store.scheduleMany(more.map((id, i) => ({ id, businessId: biz, kind, subject: 's', dueAt: at(30 + i) })), counted)).toBe(3);
    expect(statements).toHaveLength(2);
    expect(statements[1]).toEqual(statements[0]);
    expect(await store.scheduleMany([], counted)).toBe(0);
    expect(statements).toHaveLength(2);
    await expect(store.scheduleMany([{ id: unique('bad'), businessId: biz, kind, subject: 's', dueAt: new Date(NaN) }])).rejects.toThrow(TypeError);

    await store.advanceClock(biz, 60);
    expect((await claimOneByOne(store, kind, biz)).map((t) => t.id)).toEqual([early, middle, late, ...more]);
  });

  it("a firing's timers scheduled together interleave with the remaining due ones in due order (the advance's claim, one at a time)", async () => {
    const store = new TimerStore(db);
    const biz = unique('biz');
    const kind = unique('k');
    const now = await store.clock.now(biz);
    const at = (ms: number) => new Date(now.getTime() + ms);
    await store.schedule({ id: unique('expiry'), businessId: biz, kind, subject: 'expiry', dueAt: at(10_000) });
    await store.schedule({ id: unique('open'), businessId: biz, kind, subject: 'open', dueAt: at(1_000) });
    await store.advanceClock(biz, 60);
    const claimed = await claimOneByOne(store, kind, biz, async (t) => {
      // the first firing sets two timers in one statement, one due before the expiry and one after
      if (t.subject === 'open') {
        await store.scheduleMany([
          { id: `${t.id}:two`, businessId: biz, kind, subject: 'two', dueAt: new Date(t.dueAt.getTime() + 20_000) },
          { id: `${t.id}:one`, businessId: biz, kind, subject: 'one', dueAt: new Date(t.dueAt.getTime() + 5_000) },
        ]);
      }
    });
    expect(claimed.map((t) => t.subject)).toEqual(['open', 'one', 'expiry', 'two']);
    expect(await store.dueTimers(biz)).toEqual([]);
  });

  it('cancel prevents firing', async () => {
    const { time, store, kind } = onManualTime('cancel');
    const handler = jest.fn();
    const r = runner(store).on(kind, handler);
    const id = unique('t');
    await store.schedule({ id, businessId: 'biz', kind, subject: 's', dueAt: new Date(time.now().getTime() + 1000) });
    expect(await store.cancel(id)).toBe(true);
    expect(await store.cancel(id)).toBe(false);
    time.advance(2000);
    expect(await r.runDue()).toBe(0);
    expect(handler).not.toHaveBeenCalled();
    expect(await store.get(id)).toMatchObject({ status: 'canceled' });
    // Scheduling the same id again does not revive it.
    expect(await store.schedule({ id, businessId: 'biz', kind, subject: 's', dueAt: time.now() })).toBe(false);
    expect(await r.runDue()).toBe(0);
  });

  it('a failing handler retries with back-off, records the error, then succeeds', async () => {
    const { time, store, kind } = onManualTime('flaky');
    let calls = 0;
    const r = runner(store, { backoffMs: (n) => 1000 * n }).on(kind, () => {
      calls++;
      if (calls <= 2) throw new Error(`boom ${calls}`);
    });
    const id = unique('t');
    await store.schedule({ id, businessId: 'biz', kind, subject: 's', dueAt: time.now() });

    // attempts 1 and 2 fail: retried after backoffMs(attempt), 1 s then 2 s, and not a millisecond earlier
    for (const attempt of [1, 2]) {
      expect(await r.runDue()).toBe(0);
      expect(await store.get(id)).toMatchObject({ status: 'scheduled', attempts: attempt, lastError: `Error: boom ${attempt}` });
      time.advance(1000 * attempt - 1);
      expect(await r.runDue()).toBe(0);
      expect(calls).toBe(attempt);
      time.advance(1);
    }
    expect(await r.runDue()).toBe(1);
    expect(calls).toBe(3);
    expect(await store.get(id)).toMatchObject({ status: 'fired', attempts: 3 });
  });

  it("a timer that keeps failing is given up as 'failed' after maxAttempts", async () => {
    const { time, store, kind } = onManualTime('broken');
    const handler = jest.fn(() => {
      throw new Error('always');
    });
    const r = runner(store, { maxAttempts: 3, backoffMs: () => 10 }).on(kind, handler);
    const id = unique('t');
    await store.schedule({ id, businessId: 'biz', kind, subject: 's', dueAt: time.now() });
    for (let i = 0; i < 5; i++) {
      await r.runDue();
      time.advance(10);
    }
    expect(handler).toHaveBeenCalledTimes(3);
    expect(await store.get(id)).toMatchObject({ status: 'failed', attempts: 3, lastError: 'Error: always' });
  });

  it("a business's claim takes its own due timers by its clock, oldest first, and marks the one named fired in the same statement", async () => {
    const { time, store, kind, biz: mine, at } = onManualTime('own');
    const other = unique('biz');
    await store.schedule({ id: unique('late'), businessId: mine, kind, subject: 's', dueAt: at(20) });
    const first = unique('first');
    const second = unique('second');
    await store.schedule({ id: second, businessId: mine, kind, subject: 's', dueAt: at(10) });
    await store.schedule({ id: first, businessId: mine, kind, subject: 's', dueAt: at(5) });
    await store.schedule({ id: unique('theirs'), businessId: other, kind, subject: 's', dueAt: at(1) });
    await store.advanceClock(mine, 15); // mine is 15 s ahead: 5 s and 10 s are due, 20 s is not; the other business's 1 s is not due by its own clock

    const [a] = await store.claimDue(1, 30_000, [kind], mine);
    expect(a.id).toBe(first);
    const [b] = await store.claimDue(1, 30_000, [kind], mine, a.id);
    expect(b.id).toBe(second);
    expect(await store.get(first)).toMatchObject({ status: 'fired', lockedUntil: null });
    expect(await store.get(second)).toMatchObject({ status: 'scheduled', attempts: 1 });
    expect(await store.claimDue(1, 30_000, [kind], mine, b.id)).toEqual([]); // nothing else due: the last one is marked all the same
    expect(await store.get(second)).toMatchObject({ status: 'fired' });
    expect((await store.get(second))!.firedAt).toEqual(time.now());
    expect(await store.dueTimers(mine)).toEqual([]);
  });

  it("one look of a business's wake-up: marks the last fired, claims every due timer of its own in due order, and lists those held by another worker", async () => {
    const { time, store, kind, biz: mine, at } = onManualTime('look');
    const other = unique('biz');
    const [a, b, c, heldByWorker, late, failing] = ['a', 'b', 'c', 'held', 'late', 'failing'].map(unique);
    await store.scheduleMany([
      { id: c, businessId: mine, kind, subject: 'c', dueAt: at(12) },
      { id: a, businessId: mine, kind, subject: 'a', dueAt: at(5) },
      { id: b, businessId: mine, kind, subject: 'b', dueAt: at(10) },
      { id: heldByWorker, businessId: mine, kind, subject: 'held', dueAt: at(1) },
      { id: late, businessId: mine, kind, subject: 'late', dueAt: at(20) },
      { id: failing, businessId: mine, kind, subject: 'failing', dueAt: at(2) },
      { id: unique('theirs'), businessId: other, kind, subject: 'theirs', dueAt: at(1) },
    ]);
    await store.advanceClock(mine, 15);
    const [worker] = await store.claimDue(1, 30_000, [kind], mine); // another worker holds the oldest
    expect(worker.id).toBe(heldByWorker);
    const [failed] = await store.claimDue(1, 30_000, [kind], mine);
    await store.markFailed(failed.id, 'boom', at(60), failed.attempts); // failing: retried later, not waited for

    const first = await store.claimAndListDue(mine, { limit: 50, leaseMs: 30_000, kinds: [kind] });
    expect(first.claimed.map((t) => t.id)).toEqual([a, b, c]);
    expect(first.claimed.map((t) => t.attempts)).toEqual([1, 1, 1]);
    expect(first.held).toEqual([{ id: heldByWorker, kind, subject: 'held', leased: true }]);

    // a limit of one: the next due is claimed, the one past the limit is listed (it is due, nobody fires it yet)
    await store.releaseClaims([], first.claimed);
    const limited = await store.claimAndListDue(mine, { limit: 1, leaseMs: 30_000, kinds: [kind] });
    expect(limited.claimed.map((t) => t.id)).toEqual([a]);
    expect(limited.held.map((t) => t.id).sort()).toEqual([b, c, heldByWorker].sort());

    const next = await store.claimAndListDue(mine, { limit: 50, leaseMs: 30_000, kinds: [kind], fired: [a] });
    expect(next.claimed.map((t) => t.id)).toEqual([b, c]);
    expect(await store.get(a)).toMatchObject({ status: 'fired', lockedUntil: null, firedAt: time.now() });
    await store.markFired(heldByWorker);
    const last = await store.claimAndListDue(mine, { limit: 50, leaseMs: 30_000, kinds: [kind], fired: [b, c] });
    expect(last).toEqual({ claimed: [], held: [], touchedByOthers: [] }); // nothing else due: the fired ones are marked all the same
    expect((await Promise.all([b, c].map((id) => store.get(id)))).map((t) => t!.status)).toEqual(['fired', 'fired']);
    expect(await store.dueTimers(mine)).toEqual([]);
  });

  it('a timer claimed and not fired is claimed again by its claimant while its lease holds, never once someone else claimed it', async () => {
    const { time, store, kind, biz } = onManualTime('mine');
    const id = unique('t');
    await store.schedule({ id, businessId: biz, kind, subject: 's', dueAt: time.now() });
    const [claimed] = (await store.claimAndListDue(biz, { limit: 50, leaseMs: 30_000, kinds: [kind] })).claimed;
    expect(claimed.attempts).toBe(1);
    const again = await store.claimAndListDue(biz, { limit: 50, leaseMs: 30_000, kinds: [kind], mine: [claimed] });
    expect(again.claimed.map((t) => [t.id, t.attempts])).toEqual([[id, 2]]);
    // the lease ran out and a worker claimed it: the stale claimant's attempts no longer match
    time.advance(30_000);
    const [worker] = await store.claimDue(1, 30_000, [kind], biz);
    expect(worker.attempts).toBe(3);
    const stale = await store.claimAndListDue(biz, { limit: 50, leaseMs: 30_000, kinds: [kind], mine: [again.claimed[0]] });
    expect(stale).toEqual({ claimed: [], held: [{ id, kind, subject: 's', leased: true }], touchedByOthers: [] });
  });

  it('a look names the watched subjects whose timers someone else fired since a time, or that are failing; never for what the caller fired', async () => {
    const { time, store, kind, biz, at } = onManualTime('watch');
    const s = { ours: unique('s'), theirs: unique('s'), before: unique('s'), failing: unique('s'), unwatched: unique('s') };
    const id = { ours: unique('t'), theirs: unique('t'), before: unique('t'), failing: unique('t'), unwatched: unique('t') };
    await store.schedule({ id: id.failing, businessId: biz, kind, subject: s.failing, dueAt: at(-5) }); // the oldest: claimed first
    for (const k of ['ours', 'theirs', 'before', 'unwatched'] as const) await store.schedule({ id: id[k], businessId: biz, kind, subject: s[k], dueAt: at(-1) });
    await store.markFired(id.before); // fired before the watch began
    time.advance(1000);
    const since = time.now();
    const [failing] = await store.claimDue(1, 30_000, [kind], biz);
    expect(failing.id).toBe(id.failing);
    await store.markFailed(failing.id, 'boom', at(60), failing.attempts);
    for (const k of ['ours', 'theirs', 'unwatched'] as const) await store.markFired(id[k]); // `ours` by the caller, the others by another worker
    const look = await store.claimAndListDue(biz, { limit: 50, leaseMs: 30_000, kinds: [kind], watch: { subjects: [s.ours, s.theirs, s.before, s.failing], firedHere: [id.ours], since } });
    expect(look.touchedByOthers.sort()).toEqual([s.theirs, s.failing].sort());
    expect(look.claimed).toEqual([]);
  });

  it("scheduling with a lease: a new timer already due by its business's clock is inserted claimed by the caller; the others as usual", async () => {
    const { time, store, kind, biz, at } = onManualTime('lease-on-schedule');
    await store.advanceClock(biz, 10);
    const existing = unique('existing');
    await store.schedule({ id: existing, businessId: biz, kind, subject: 'existing', dueAt: at(1) });
    const [due, later, otherKind] = ['due', 'later', 'other'].map(unique);
    const lease = { leaseMs: 30_000, kinds: [kind], taken: [] as Timer[] };
    const created = await store.scheduleMany(
      [
        { id: later, businessId: biz, kind, subject: 'later', dueAt: at(20) }, // due in the business's 20 s, its clock is at 10 s
        { id: due, businessId: biz, kind, subject: 'due', dueAt: at(9) },
        { id: otherKind, businessId: biz, kind: `${kind}-other`, subject: 'other', dueAt: at(1) },
        { id: existing, businessId: biz, kind, subject: 'existing', dueAt: at(1) }, // already stored: kept, not taken
      ],
      db,
      lease,
    );
    expect(created).toBe(3);
    expect(lease.taken.map((t) => [t.id, t.attempts])).toEqual([[due, 1]]);
    expect(lease.taken[0].lockedUntil).toEqual(new Date(time.now().getTime() + 30_000));
    expect(await store.get(later)).toMatchObject({ status: 'scheduled', attempts: 0, lockedUntil: null });
    expect(await store.get(otherKind)).toMatchObject({ status: 'scheduled', attempts: 0, lockedUntil: null });
    // what the lease took is held against everyone else; the rest is claimable as usual
    const look = await store.claimAndListDue(biz, { limit: 50, leaseMs: 30_000, kinds: [kind] });
    expect(look.claimed.map((t) => t.id)).toEqual([existing]);
    expect(look.held.map((t) => [t.id, t.leased]).sort()).toEqual([[due, true], [otherKind, false]].sort());
  });

  it("the clock's move lists the business's timers due by its new time in the same statement", async () => {
    const { time, store, kind, biz, at } = onManualTime('move');
    const [soon, far] = [unique('soon'), unique('far')];
    await store.scheduleMany([
      { id: soon, businessId: biz, kind, subject: 'soon', dueAt: at(10) },
      { id: far, businessId: biz, kind, subject: 'far', dueAt: at(100) },
    ]);
    expect(await store.advanceClockListingDue(biz, 5)).toEqual({ now: at(5), offsetMs: 5000, due: [], movedAt: time.now() });
    expect(await store.advanceClockListingDue(biz, 10)).toEqual({ now: at(15), offsetMs: 15_000, due: [{ id: soon, kind, subject: 'soon', leased: false }], movedAt: time.now() });
  });

  it("a lease left by a crashed claim is taken again after it expires", async () => {
    const { time, store, kind } = onManualTime('lease');
    const id = unique('t');
    await store.schedule({ id, businessId: 'biz', kind, subject: 's', dueAt: time.now() });
    // A worker claims it and "crashes": it never marks the timer.
    const claimed = await store.claimDue(10, 5000, [kind]);
    expect(claimed.map((t) => t.id)).toEqual([id]);
    expect(await store.claimDue(10, 5000, [kind])).toEqual([]);

    const handler = jest.fn();
    const r = runner(store).on(kind, handler);
    time.advance(4999);
    expect(await r.runDue()).toBe(0);
    time.advance(1);
    expect(await r.runDue()).toBe(1);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(await store.get(id)).toMatchObject({ status: 'fired', attempts: 2 });
    // The crashed worker's late failure report is fenced off.
    expect(await store.markFailed(id, 'late', null, claimed[0].attempts)).toBe(false);
  });

  it('fires after a restart: scheduled, runner stopped, database closed and reopened', async () => {
    const kind = unique('restart');
    const id = unique('t');
    const before = new TimerStore(db);
    const early = jest.fn();
    const r1 = runner(before, { pollMs: 20 }).on(kind, early);
    r1.start();
    await before.schedule({ id, businessId: 'biz', kind, subject: 's', dueAt: new Date(Date.now() + 400) });
    await sleep(50);
    await r1.stop();
    await db.close();
    expect(early).not.toHaveBeenCalled();

    db = await b.open();
    const after = new TimerStore(db);
    expect(await after.get(id)).toMatchObject({ status: 'scheduled' });
    const fired = new Promise<Timer>((resolve) => runner(after, { pollMs: 20 }).on(kind, resolve).start());
    let timeout: NodeJS.Timeout | undefined;
    const timer = await Promise.race([fired, new Promise<null>((resolve) => (timeout = setTimeout(() => resolve(null), 5000)))]);
    clearTimeout(timeout);
    expect(timer).toMatchObject({ id, kind });
    await sleep(50);
    expect(await after.get(id)).toMatchObject({ status: 'fired' });
    expect(early).not.toHaveBeenCalled();
  });

  it('two runners on one database never fire the same timer twice', async () => {
    const other = b.second ? await b.second() : db;
    if (other !== db) extraDbs.push(other);
    const kind = unique('race');
    const seeding = new TimerStore(db);
    const count = 300;
    const now = Date.now();
    for (let i = 0; i < count; i += 50) {
      await db.transaction(async (tx) => {
        for (let j = i; j < i + 50; j++) {
          await seeding.schedule({ id: `${kind}:${j}`, businessId: 'biz', kind, subject: `s${j}`, dueAt: new Date(now - 1000 + j) }, tx);
        }
      });
    }
    const calls = new Map<string, number>();
    const handler = async (t: Timer) => {
      calls.set(t.id, (calls.get(t.id) ?? 0) + 1);
      if (Math.random() < 0.3) await sleep(1);
    };
    const r1 = runner(new TimerStore(db), { batchSize: 7, pollMs: 5 }).on(kind, handler);
    const r2 = runner(new TimerStore(other), { batchSize: 5, pollMs: 5 }).on(kind, handler);
    r1.start();
    r2.start();
    const fired = await Promise.all([r1.runDue(), r2.runDue(), r1.runDue(), r2.runDue()]);
    for (let i = 0; i < 100 && calls.size < count; i++) await sleep(20);
    await Promise.all([r1.stop(), r2.stop()]);

    expect(calls.size).toBe(count);
    expect([...calls.values()].filter((n) => n !== 1)).toEqual([]);
    expect(fired.reduce((a, n) => a + n, 0)).toBeLessThanOrEqual(count);
    const { rows } = await db.query<{ status: string; n: string }>(
      `SELECT status, count(*)::text AS n FROM timers WHERE kind = $1 GROUP BY status`,
      [kind],
    );
    expect(rows).toEqual([{ status: 'fired', n: String(count) }]);
  });
}

describe('timers on PostgreSQL', () => {
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    testDb = await createTestDatabase('timers');
  });
  timersContract(() => ({
    kind: 'postgres',
    open: async () => {
      const db = connectPostgres(testDb.url);
      await migrate(db);
      return db;
    },
    second: async () => connectPostgres(testDb.url),
    cleanup: () => testDb.drop(),
  }));
});

describe('timers on the embedded database', () => {
  const dir = tempDir('timers-');
  timersContract(() => ({
    kind: 'embedded',
    open: async () => {
      const db = await openEmbedded(dir.path);
      await migrate(db);
      return db;
    },
    cleanup: async () => dir.remove(),
  }));
});
