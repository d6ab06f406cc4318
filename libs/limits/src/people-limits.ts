import { createHash } from 'node:crypto';
import { TimeSource, wallTime } from '@lib/timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { Budget, EmailKind, emailBudgets, ALERT_EMAILS_PER_PERSON, BROWSER_COUNT_KEEP_SEC, EMAIL_CHANGES_PER_PERSON, KNOWN_BROWSER_KEEP_SEC, PASSWORD_DISABLED_AFTER, passwordDisabled, passwordLockSec, retryAfterSec, SESSION_COUNT_KEEP_SEC, SIGNUP_CODE_FAILURES, TWO_STEP_CODE_FAILURES, TWO_STEP_COUNT_KEEP_SEC, TWO_STEP_LOCK_SEC } from './policies';
import { Ladder, ladderLockMs, LimitStore } from './limit-store';

/** passwordLockSec as the store's ladder: every 5th failure in a row, 1 min, 5 min, 15 min, then an hour. */
export const PASSWORD_LADDER: Ladder = Object.freeze({ every: 5, locksMs: Object.freeze([5, 10, 15, 20].map((n) => passwordLockSec(n)! * 1000)) });
/** twoStepLockSec as the store's ladder: every 5th wrong code in a row locks 15 minutes. */
export const TWO_STEP_LADDER: Ladder = Object.freeze({ every: TWO_STEP_CODE_FAILURES, locksMs: Object.freeze([TWO_STEP_LOCK_SEC * 1000]), keepMs: TWO_STEP_COUNT_KEEP_SEC * 1000 });

/** How long a slot of an attempt in flight is held at most (on the limits' clock) if its process never ends it. */
export const ATTEMPT_HOLD_MS = 30_000;
/** How long (real time) an attempt waits for a slot while all those left before the next lock are in flight. */
export const ATTEMPT_BUSY_WAIT_MS = 5_000;

/** The e-mail's count: the password ladder, kept until a success or reset, disabling at 100. */
const EMAIL_LADDER: Ladder = Object.freeze({ ...PASSWORD_LADDER, refuseFrom: PASSWORD_DISABLED_AFTER });
/** A known browser's own count: the same locks, never disabling, forgotten 30 days after its last failure. */
const BROWSER_LADDER: Ladder = Object.freeze({ ...PASSWORD_LADDER, keepMs: BROWSER_COUNT_KEEP_SEC * 1000 });
/** A session's wrong current passwords: the same locks, never disabling, forgotten after 30 days. */
const SESSION_LADDER: Ladder = Object.freeze({ ...PASSWORD_LADDER, keepMs: SESSION_COUNT_KEEP_SEC * 1000 });

/** The §7 codes these limits answer with (status: too_many_attempts 429, too_many_emails 429, password_reset_required 403). */
export type LimitRefusalCode = 'too_many_attempts' | 'too_many_emails' | 'password_reset_required';

export const LIMIT_REFUSAL_STATUS: Readonly<Record<LimitRefusalCode, number>> = Object.freeze({
  too_many_attempts: 429,
  too_many_emails: 429,
  password_reset_required: 403,
});

/**
 * A limit's answer. Refused: the §7 code and the `Retry-After` seconds (null for
 * password_reset_required, which waits for a reset, not for time).
 */
export type LimitDecision = { allowed: true } | { allowed: false; refused: LimitRefusalCode; retryAfterSec: number | null };

/** After a failure: the count it made, the lock it started (seconds) and the next attempt's answer. */
export interface FailureOutcome {
  failures: number;
  lockSec: number | null;
  next: LimitDecision;
}

/** The error message of a refusal (the envelope's `message`; the code is what clients branch on). */
export function limitRefusalMessage(refusal: { refused: LimitRefusalCode; retryAfterSec: number | null }): string {
  const wait = refusal.retryAfterSec === null ? '' : ` Try again in ${refusal.retryAfterSec} second${refusal.retryAfterSec === 1 ? '' : 's'}.`;
  switch (refusal.refused) {
    case 'too_many_attempts':
      return `Too many attempts.${wait}`;
    case 'too_many_emails':
      return `Too many e-mails sent.${wait}`;
    case 'password_reset_required':
      return 'Password no longer works after too many failed attempts; reset it.';
  }
}

const ALLOWED: LimitDecision = Object.freeze({ allowed: true });

/**
 * An attempt in flight (a password or a two-step code being verified) holding one of the slots
 * left before its counter's next lock. End it exactly once: `failed` (a wrong answer: counted,
 * locking at a ladder step) or `succeeded` (a right one: the count cleared); `release` frees the
 * slot without counting and does nothing once the attempt was ended, so callers put it in a
 * `finally` for attempts that end otherwise (an exception). A slot never ended is freed when it
 * expires (ATTEMPT_HOLD_MS on the limits' clock).
 */
export interface LimitAttempt {
  failed(): Promise<FailureOutcome>;
  succeeded(): Promise<void>;
  release(): Promise<void>;
}

/** Before an attempt: a slot to verify it in, or the refusal (429 too_many_attempts, 403 password_reset_required). */
export type AttemptDecision = { allowed: true; attempt: LimitAttempt } | { allowed: false; refused: LimitRefusalCode; retryAfterSec: number | null };

/**
 * A count of wrong answers per subject (a session, a person) on a ladder that never disables:
 * `check` only reads its lock (429 too_many_attempts while locked); `reserve` takes a slot to
 * verify in, as reservePassword does; `failed` counts a wrong answer without a slot; `succeeded`
 * clears the count.
 */
export interface LadderCount {
  check(subject: string): Promise<LimitDecision>;
  reserve(subject: string): Promise<AttemptDecision>;
  failed(subject: string): Promise<FailureOutcome>;
  succeeded(subject: string): Promise<void>;
}

/** An e-mail address as the limits count it: trimmed, lower case. */
export function normalizeAddress(address: string): string {
  return address.trim().toLowerCase();
}

function digest(subject: string): string {
  return createHash('sha256').update(subject, 'utf8').digest('hex').slice(0, 32);
}

function required(value: string, what: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new Error(`people limits: empty ${what}`);
  return value;
}

/**
 * Every per person, address or code limit of spec §8, over one LimitStore (Redis or SQL) and
 * the injected clock. Attempts judged by a ladder (passwords; current passwords and two-step
 * codes, each a LadderCount) take a slot first (`reserve…`: a LimitAttempt, ended failed /
 * succeeded / released), so concurrent guesses never outrun a lock; `check…` only reads,
 * `…Failed`/`failed` counts without a slot.
 * Take-style methods for budgets. Subjects are stored as hashes (`<prefix>:<rule>:{<sha256>}`),
 * never as addresses.
 */
export class PeopleLimits {
  private readonly time: TimeSource;
  private readonly prefix: string;

  private readonly holdMs: number;
  private readonly busyWaitMs: number;

  /**
   * `holdMs`: how long a slot of an attempt in flight is held at most (ATTEMPT_HOLD_MS, on
   * `time`); `busyWaitMs`: how long (real time) an attempt waits for a slot when all are in
   * flight, before 429 too_many_attempts with Retry-After 1 (ATTEMPT_BUSY_WAIT_MS).
   */
  constructor(
    private readonly store: LimitStore,
    options: { time?: TimeSource; prefix?: string; holdMs?: number; busyWaitMs?: number } = {},
  ) {
    this.time = options.time ?? wallTime;
    this.prefix = options.prefix ?? 'people-limits';
    this.holdMs = options.holdMs ?? ATTEMPT_HOLD_MS;
    this.busyWaitMs = options.busyWaitMs ?? ATTEMPT_BUSY_WAIT_MS;
    if (!this.prefix || this.prefix.includes('*')) throw new Error(`invalid people limits prefix: ${this.prefix}`);
  }

  // ── failed passwords per e-mail, and per browser that signed in before ──

  /**
   * Before checking a password for `email`. A browser that signed in to this e-mail before
   * (`browserId`: the caller's long-lived random cookie) is judged by its own count only: it is
   * never locked by the e-mail's count nor disabled. Any other attempt: 403
   * password_reset_required after 100 failures in a row, else 429 too_many_attempts while locked.
   */
  async checkPassword(email: string, browserId?: string | null): Promise<LimitDecision> {
    const now = this.now();
    const address = normalizeAddress(required(email, 'e-mail'));
    if (browserId && (await this.isKnownBrowser(address, browserId, now))) {
      return this.lockDecision(await this.store.read(this.browserKey(address, browserId), now), now);
    }
    const state = await this.store.read(this.key('pw-email', address), now);
    if (passwordDisabled(state.count)) return { allowed: false, refused: 'password_reset_required', retryAfterSec: null };
    return this.lockDecision(state, now);
  }

  /**
   * Before verifying a password for `email`, the way to take an attempt (checkPassword's rules,
   * judged by the same count): refused while locked (429) or disabled (403); otherwise a slot is
   * held while the password is verified, and only while the failures plus the attempts in flight
   * stay below the next lock — concurrent guesses can never outrun the ladder, and a right
   * password is never counted. When every slot left is in flight the attempt waits (briefly,
   * real time) for one, then answers 429 too_many_attempts with Retry-After 1.
   */
  async reservePassword(email: string, browserId?: string | null): Promise<AttemptDecision> {
    const address = normalizeAddress(required(email, 'e-mail'));
    const [key, ladder] = await this.passwordCount(address, browserId, this.now());
    return this.reserve(key, ladder);
  }

  /** A wrong password (or an unknown e-mail: count it the same). Counts on the browser's own count when it is a known one. */
  async passwordFailed(email: string, browserId?: string | null): Promise<FailureOutcome> {
    const now = this.now();
    const address = normalizeAddress(required(email, 'e-mail'));
    const [key, ladder] = await this.passwordCount(address, browserId, now);
    return this.ladderFailure(key, null, ladder, now);
  }

  /**
   * A correct password: clears the count that judged the attempt (the browser's own for a known
   * browser, the e-mail's otherwise). Call `browserSignedIn` once the sign-in is complete.
   */
  async passwordSucceeded(email: string, browserId?: string | null): Promise<void> {
    const now = this.now();
    const address = normalizeAddress(required(email, 'e-mail'));
    if (browserId && (await this.isKnownBrowser(address, browserId, now))) {
      await this.store.clear(this.browserKey(address, browserId));
    } else {
      await this.store.clear(this.key('pw-email', address));
    }
  }

  /**
   * A completed sign-in (password and second step, or a passkey) from `browserId`: from now on
   * that browser has its own failed-password count for this e-mail. Remembered 180 days after
   * its last sign-in.
   */
  async browserSignedIn(email: string, browserId: string): Promise<void> {
    const address = normalizeAddress(required(email, 'e-mail'));
    await this.store.hit(this.knownBrowserKey(address, required(browserId, 'browser id')), { keepMs: KNOWN_BROWSER_KEEP_SEC * 1000 }, this.now());
  }

  /** A password reset (or a new password set another way): the e-mail's count and its disabling end. */
  async passwordReset(email: string): Promise<void> {
    await this.store.clear(this.key('pw-email', normalizeAddress(required(email, 'e-mail'))));
  }

  // ── wrong current passwords per session, wrong two-step codes per person ──

  /** A session's wrong current passwords (/me/password, /me/email, /me/two-factor, step-up): the password locks, never disabling, forgotten after 30 days. */
  readonly currentPasswords: LadderCount = this.ladderCount((sessionId) => this.key('pw-session', required(sessionId, 'session id')), SESSION_LADDER);

  /** A person's wrong two-step codes (authenticator or recovery), in any challenge: every 5th in a row locks codes for 15 minutes. */
  readonly twoStepCodes: LadderCount = this.ladderCount((personId) => this.key('two-step', required(personId, 'person id')), TWO_STEP_LADDER);

  // ── sign-up codes per address ──

  /** Before checking a sign-up code sent to `address`: 429 too_many_attempts after 10 wrong codes in a day. */
  async checkSignupCode(address: string): Promise<LimitDecision> {
    const now = this.now();
    const state = await this.store.read(this.key(SIGNUP_CODE_FAILURES.name, normalizeAddress(required(address, 'address'))), now);
    return state.count >= SIGNUP_CODE_FAILURES.limit ? this.refused('too_many_attempts', state.windowEndsAt ?? now, now) : ALLOWED;
  }

  async signupCodeFailed(address: string): Promise<FailureOutcome> {
    const now = this.now();
    const state = await this.store.hit(this.key(SIGNUP_CODE_FAILURES.name, normalizeAddress(required(address, 'address'))), { windowMs: SIGNUP_CODE_FAILURES.windowSec * 1000 }, now);
    const full = state.count >= SIGNUP_CODE_FAILURES.limit;
    return { failures: state.count, lockSec: null, next: full ? this.refused('too_many_attempts', state.windowEndsAt ?? now, now) : ALLOWED };
  }

  // ── budgets ──

  /**
   * One e-mail to `address` of `kind`: allowed (the budget is spent: send it) or refused
   * too_many_emails with Retry-After (nothing spent). Per §8, a resend or new alert e-mail
   * answers that refusal as 429; any other request answers as usual and sends nothing.
   */
  async takeEmail(address: string, kind: EmailKind): Promise<LimitDecision> {
    return this.take(emailBudgets(kind), normalizeAddress(required(address, 'address')));
  }

  /**
   * Gives back one takeEmail(address, kind) whose e-mail was never sent because the request
   * ended refused or undelivered (a refusal claims nothing; decision 0033, addendum of 2026-11-29).
   */
  async giveBackEmail(address: string, kind: EmailKind): Promise<void> {
    await this.giveBack(emailBudgets(kind), normalizeAddress(required(address, 'address')));
  }

  /** Gives back one startAlertEmail(personId) of a request that ended refused (see giveBackEmail). */
  async giveBackAlertEmail(personId: string): Promise<void> {
    await this.giveBack([ALERT_EMAILS_PER_PERSON], required(personId, 'person id'));
  }

  /**
   * How long until takeEmail(address, kind) could be allowed, without taking anything: 0 when it
   * would be now, else the seconds until the latest full budget's window ends (the Retry-After
   * its refusal would carry). A refusal for another reason (a code a minute after the last)
   * answers the longer of the two waits (decision 0033, addendum of 2026-11-30, audit lim F2).
   */
  async emailWaitSec(address: string, kind: EmailKind): Promise<number> {
    return this.waitSec(emailBudgets(kind), normalizeAddress(required(address, 'address')));
  }

  /** How long until startAlertEmail(personId) could be allowed (0: now), without taking anything. */
  async alertEmailWaitSec(personId: string): Promise<number> {
    return this.waitSec([ALERT_EMAILS_PER_PERSON], required(personId, 'person id'));
  }

  /** `mailBudget.take(address, kind)`: the same as takeEmail. */
  readonly mailBudget = { take: (address: string, kind: EmailKind) => this.takeEmail(address, kind) };

  /** An e-mail change started by `personId`: 3 an hour, else 429 too_many_emails. */
  async startEmailChange(personId: string): Promise<LimitDecision> {
    return this.take([EMAIL_CHANGES_PER_PERSON], required(personId, 'person id'));
  }

  /** A new alert e-mail started by `personId` (any business): 3 an hour, else 429 too_many_emails. */
  async startAlertEmail(personId: string): Promise<LimitDecision> {
    return this.take([ALERT_EMAILS_PER_PERSON], required(personId, 'person id'));
  }

  // ── parts ──

  private async take(budgets: readonly Budget[], subject: string): Promise<LimitDecision> {
    const now = this.now();
    const result = await this.store.take(
      budgets.map((b) => ({ key: this.key(b.name, subject), limit: b.limit, windowMs: b.windowSec * 1000 })),
      now,
    );
    return result.taken ? ALLOWED : this.refused('too_many_emails', result.retryAt, now);
  }

  /** The wait (seconds, 0: none) before every budget of `budgets` has room for one more take by `subject`. */
  private async waitSec(budgets: readonly Budget[], subject: string): Promise<number> {
    const now = this.now();
    let until: number | null = null;
    for (const b of budgets) {
      const state = await this.store.read(this.key(b.name, subject), now);
      if (state.count >= b.limit) until = Math.max(until ?? now, state.windowEndsAt ?? now);
    }
    return until === null ? 0 : retryAfterSec(until, now);
  }

  private async giveBack(budgets: readonly Budget[], subject: string): Promise<void> {
    await this.store.giveBack(budgets.map((b) => this.key(b.name, subject)), this.now());
  }

  /** The count that judges a password for `address`: a known browser's own (never disabling), else the e-mail's. */
  private async passwordCount(address: string, browserId: string | null | undefined, now: number): Promise<[string, Ladder]> {
    if (browserId && (await this.isKnownBrowser(address, browserId, now))) return [this.browserKey(address, browserId), BROWSER_LADDER];
    return [this.key('pw-email', address), EMAIL_LADDER];
  }

  /** A failure counted and its step's lock set in one atomic step of the store (freeing `hold` when given). */
  private async ladderFailure(key: string, hold: string | null, ladder: Ladder, now: number): Promise<FailureOutcome> {
    const state = await this.store.failed(key, hold, ladder, now);
    const lockMs = ladderLockMs(ladder, state.count);
    const lockSec = lockMs === null ? null : lockMs / 1000;
    let next: LimitDecision;
    if (ladder.refuseFrom !== undefined && passwordDisabled(state.count)) next = { allowed: false, refused: 'password_reset_required', retryAfterSec: null };
    else next = this.lockDecision(state, now);
    return { failures: state.count, lockSec, next };
  }

  /**
   * A slot on `key`'s ladder for one attempt, waiting (real time, 10–25 ms between tries, at
   * most busyWaitMs) while every slot left before the next lock is in flight.
   */
  private async reserve(key: string, ladder: Ladder): Promise<AttemptDecision> {
    const started = performance.now();
    for (;;) {
      const now = this.now();
      const result = await this.store.reserve(key, ladder, this.holdMs, now);
      if (result.outcome === 'reserved') return { allowed: true, attempt: this.attempt(key, result.hold, ladder) };
      if (result.outcome === 'locked') {
        if (ladder.refuseFrom !== undefined && result.state.count >= ladder.refuseFrom) return { allowed: false, refused: 'password_reset_required', retryAfterSec: null };
        return this.refused('too_many_attempts', result.state.lockedUntil ?? now, now);
      }
      if (performance.now() - started >= this.busyWaitMs) return { allowed: false, refused: 'too_many_attempts', retryAfterSec: 1 };
      await sleep(10 + Math.floor(Math.random() * 16));
    }
  }

  private attempt(key: string, hold: string, ladder: Ladder): LimitAttempt {
    let ended = false;
    const end = () => {
      if (ended) throw new Error('people limits: an attempt is ended once');
      ended = true;
    };
    return {
      failed: async () => {
        end();
        return this.ladderFailure(key, hold, ladder, this.now());
      },
      succeeded: async () => {
        end();
        await this.store.succeeded(key, hold);
      },
      release: async () => {
        if (ended) return;
        ended = true;
        await this.store.release(key, hold);
      },
    };
  }

  /** `key`'s lock as it stands: 429 too_many_attempts while locked (a count that never disables). */
  private async checkLock(key: string): Promise<LimitDecision> {
    const now = this.now();
    return this.lockDecision(await this.store.read(key, now), now);
  }

  /** The count of each subject on `keyOf(subject)`, judged by `ladder` (one that never disables). */
  private ladderCount(keyOf: (subject: string) => string, ladder: Ladder): LadderCount {
    return {
      check: async (subject) => this.checkLock(keyOf(subject)),
      reserve: async (subject) => this.reserve(keyOf(subject), ladder),
      failed: async (subject) => this.ladderFailure(keyOf(subject), null, ladder, this.now()),
      succeeded: async (subject) => this.store.clear(keyOf(subject)),
    };
  }

  private lockDecision(state: { lockedUntil: number | null }, now: number): LimitDecision {
    return state.lockedUntil !== null && state.lockedUntil > now ? this.refused('too_many_attempts', state.lockedUntil, now) : ALLOWED;
  }

  private refused(code: LimitRefusalCode, untilMs: number, now: number): Extract<LimitDecision, { allowed: false }> {
    return { allowed: false, refused: code, retryAfterSec: retryAfterSec(untilMs, now) };
  }

  private async isKnownBrowser(address: string, browserId: string, now: number): Promise<boolean> {
    return (await this.store.read(this.knownBrowserKey(address, browserId), now)).count > 0;
  }

  private browserKey(address: string, browserId: string): string {
    return `${this.prefix}:pw-browser:{${digest(address)}}:${digest(browserId)}`;
  }

  private knownBrowserKey(address: string, browserId: string): string {
    return `${this.prefix}:known-browser:{${digest(address)}}:${digest(browserId)}`;
  }

  /** `{…}` is a Redis Cluster hash tag: one subject's budgets share a slot, so one script can take them together. */
  private key(rule: string, subject: string): string {
    return `${this.prefix}:${rule}:{${digest(subject)}}`;
  }

  private now(): number {
    return this.time().getTime();
  }
}
