import { Decider, DomainRefusal, decideBy, ignoreUnknown } from '@lib/domain';
import type { AccountEvent } from '../events';
import { EMAILED_CODE_RULES } from '@lib/limits';
import { emailKey } from '../email-key';
import { CODE_LIFETIME_MS } from '../signup.decider';
import { AccountStreamEvent, EmailChangeStartedData, asAccountStreamEvent } from './recovery.events';

/**
 * Password resets and e-mail changes over the person's stream (decision 0038), a pure decider
 * beside decision 0034's `accountDecider` (it folds that decider's events too), with
 * given/when/then tests in test/accounts/recovery.decider.spec.ts. Hashes, matches and the time
 * come in the command or the context:
 *
 * - a reset link works an hour, once, and only the newest one (400 invalid_token); at most 3 are
 *   sent per hour (past them the request answers as usual and nothing is recorded or sent);
 *   completing one sets the password and ends every session; during a hold 409 reset_on_hold;
 * - an e-mail change: at most 3 started per hour, and a new code to the address pending a minute
 *   after the last (429 too_many_emails, Retry-After the longer wait; another address is a new
 *   change and waits for no minute: addendum of 2026-11-30); the newest pending one is confirmed
 *   with its code (400 verification_expired when none, replaced, undone or older than a day; 400
 *   code_expired after 15 minutes, locked or not; 5 wrong tries → 429 too_many_attempts,
 *   Retry-After until the dead code expires — addendum of 2026-11-30; a wrong code is recorded,
 *   the handler answers 400 invalid_code);
 * - a changed address gives the old one an undo link (7 days, once): undoing puts the old
 *   address back, ends every session, and requires a password reset held a day;
 * - an undo is a takeover signal and takes away every way in whoever held the account could
 *   have added (addendum of 2026-11-28): every passkey removed and two-step sign-in turned off,
 *   in the same decision. All of them, not only those added since the change began: the change
 *   is the intruder's last step, not their first, and nothing on the stream tells their passkey
 *   or authenticator from the owner's. The reset that lifts the undo's lock does it again (only
 *   a session racing the undo could have added one since). The owner adds them again.
 */

export const RESET_LINK_LIFETIME_MS = 60 * 60 * 1000;
export const RESET_LINKS_PER_HOUR = 3;
export const EMAIL_CHANGE_LIFETIME_MS = 24 * 60 * 60 * 1000;
export const EMAIL_CHANGES_PER_HOUR = 3;
export const UNDO_LINK_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
export const RESET_HOLD_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const WRONG_TRIES_PER_CODE = EMAILED_CODE_RULES.wrongTriesPerCode;

/** Whole seconds until `at` (at least 1): a Retry-After. */
const secondsUntil = (at: number, now: Date): number => Math.max(1, Math.ceil((at - now.getTime()) / 1000));

export interface PendingEmailChange {
  id: string;
  newEmail: string;
  codeHash: string;
  codeExpiresAt: string;
  expiresAt: string;
  wrongTries: number;
}

export interface UndoLink {
  changeId: string;
  tokenHash: string;
  oldEmail: string;
  newEmail: string;
  expiresAt: string;
}

export interface RecoveryState {
  account: { id: string; email: string } | null;
  sessions: readonly string[];
  /** When reset links were requested (the 3-an-hour rule). */
  resetsRequestedAt: readonly string[];
  /** The newest reset link, while it can still be used. */
  reset: { id: string; tokenHash: string; expiresAt: string } | null;
  /** The password stopped working (an undone e-mail change) until a reset. */
  resetRequired: boolean;
  /** No new password before this (an undone e-mail change). */
  holdUntil: string | null;
  pendingChange: PendingEmailChange | null;
  changesStartedAt: readonly string[];
  /** Undo links not used yet (each puts back its own old address). */
  undos: readonly UndoLink[];
  /** The person's passkeys (ids), which an undo removes. */
  passkeys: readonly string[];
  /** The setup id of two-step sign-in while it is on, which an undo turns off. */
  twoFactorSetupId: string | null;
  /** What an undo took away, until the reset that lifts its lock (the reset e-mail says it). */
  undoRemoved: UndoRemovals | null;
}

/** What an undone e-mail change took away besides the sessions. */
export interface UndoRemovals {
  passkeys: number;
  twoFactor: boolean;
}

export type RecoveryCommand =
  | { type: 'RequestPasswordReset'; resetId: string; tokenHash: string }
  | { type: 'CompletePasswordReset'; tokenHash: string; passwordHash: string }
  | { type: 'StartEmailChange'; change: EmailChangeStartedData }
  | { type: 'TryEmailChangeCode'; checkedHash: string | null; codeMatches: boolean; undoTokenHash: string }
  | { type: 'UndoEmailChange'; tokenHash: string }
  /** SMTP refused the link or code of the request that recorded it: withdrawn, what was there before (`before`) back (addendum of 2026-11-29). */
  | { type: 'WithdrawPasswordReset'; resetId: string; before: RecoveryState }
  | { type: 'WithdrawEmailChange'; changeId: string; before: RecoveryState };

export interface RecoveryContext {
  now: Date;
}

const retryLater = (code: 'too_many_attempts' | 'too_many_emails' | 'reset_on_hold', message: string, seconds: number) => new DomainRefusal(code, message, null, { retry_after: seconds });
const invalidToken = (what: string) => new DomainRefusal('invalid_token', `This ${what} link was used, replaced by a newer one or has expired.`, 'token');
const expiredChange = () => new DomainRefusal('verification_expired', 'No e-mail change is waiting for a code: it was confirmed, replaced, undone or is older than a day. Start again.');

function opened(state: RecoveryState) {
  if (state.account === null) throw new DomainRefusal('not_found', 'No account with this id.');
  return state.account;
}

/** `times` without the last occurrence of `time` (a withdrawn request no longer counts). */
function withoutLast(times: readonly string[], time: string): readonly string[] {
  const i = times.lastIndexOf(time);
  return i < 0 ? times : [...times.slice(0, i), ...times.slice(i + 1)];
}

const withinHour = (times: readonly string[], now: Date) => times.filter((t) => Date.parse(t) > now.getTime() - HOUR_MS);

/** When an e-mail change may next be started (3 an hour): `now` when fewer were started in the last hour, else when the oldest of them leaves it. */
export function nextEmailChangeStart(state: RecoveryState, now: Date): number {
  const recent = withinHour(state.changesStartedAt, now);
  return recent.length < EMAIL_CHANGES_PER_HOUR ? now.getTime() : Date.parse(recent[recent.length - EMAIL_CHANGES_PER_HOUR]) + HOUR_MS;
}

/** The reset link a token's hash names, usable at `now`, else 400 invalid_token. */
export function usableReset(state: RecoveryState, tokenHash: string, now: Date): { id: string; expiresAt: string } {
  const reset = state.reset;
  if (state.account === null || reset === null || reset.tokenHash !== tokenHash || now.getTime() >= Date.parse(reset.expiresAt)) throw invalidToken('password reset');
  return reset;
}

/** Whether a reset request at `now` may send a link (at most 3 an hour per account's address). */
export const mayRequestReset = (state: RecoveryState, now: Date): boolean => state.account !== null && withinHour(state.resetsRequestedAt, now).length < RESET_LINKS_PER_HOUR;

const endAll = (state: RecoveryState, reason: 'password_reset' | 'email_change_undone'): AccountEvent[] =>
  state.sessions.map((id): AccountEvent => ({ type: 'SessionEnded', data: { session_id: id, reason } }));

/** Every passkey removed and two-step sign-in turned off (an undone e-mail change). */
const takeAwayWaysIn = (state: RecoveryState): AccountStreamEvent[] => [
  ...state.passkeys.map((id): AccountStreamEvent => ({ type: 'PasskeyRemoved', data: { passkey_id: id, reason: 'email_change_undone' } })),
  ...(state.twoFactorSetupId === null ? [] : [{ type: 'TwoFactorDisabled', data: { setup_id: state.twoFactorSetupId, reason: 'email_change_undone' } } as AccountStreamEvent]),
];

export const recoveryDecider: Decider<RecoveryCommand, AccountStreamEvent, RecoveryState, RecoveryContext> = {
  initialState: {
    account: null,
    sessions: [],
    resetsRequestedAt: [],
    reset: null,
    resetRequired: false,
    holdUntil: null,
    pendingChange: null,
    changesStartedAt: [],
    undos: [],
    passkeys: [],
    twoFactorSetupId: null,
    undoRemoved: null,
  },
  decide: (command, state, context) =>
    decideBy<RecoveryCommand, RecoveryState, RecoveryContext, AccountStreamEvent>(
      {
        RequestPasswordReset(c, s, ctx) {
          opened(s);
          if (!mayRequestReset(s, ctx.now)) return [];
          return [
            {
              type: 'PasswordResetRequested',
              data: { reset_id: c.resetId, token_hash: c.tokenHash, requested_at: ctx.now.toISOString(), expires_at: new Date(ctx.now.getTime() + RESET_LINK_LIFETIME_MS).toISOString() },
            },
          ];
        },
        CompletePasswordReset(c, s, ctx) {
          const account = opened(s);
          const reset = usableReset(s, c.tokenHash, ctx.now);
          if (s.holdUntil !== null && ctx.now.getTime() < Date.parse(s.holdUntil)) {
            throw retryLater('reset_on_hold', 'An undone e-mail change holds new passwords for a day: try again later.', secondsUntil(Date.parse(s.holdUntil), ctx.now));
          }
          return [
            { type: 'AccountPasswordChanged', data: { account_id: account.id, password_hash: c.passwordHash } },
            { type: 'PasswordResetCompleted', data: { reset_id: reset.id } },
            ...endAll(s, 'password_reset'),
            // the undo's lock lifted: anything added during it came from a session racing the undo
            ...(s.resetRequired ? takeAwayWaysIn(s) : []),
          ];
        },
        StartEmailChange(c, s, ctx) {
          opened(s);
          const now = ctx.now.getTime();
          const next = nextEmailChangeStart(s, ctx.now);
          // §8 "a new code can be sent a minute after the last": a start for the address already pending is its new code
          const pending = s.pendingChange;
          const codeAgain = pending !== null && emailKey(pending.newEmail) === emailKey(c.change.new_email) ? codeSentAt(pending) + EMAILED_CODE_RULES.resendAfterSec * 1000 : now;
          if (next > now || codeAgain > now) {
            // Retry-After: the longer of the waits that hold (audit lim F2, F3)
            const message = codeAgain >= next ? 'A code was just sent to this address: wait a minute before asking for another.' : `At most ${EMAIL_CHANGES_PER_HOUR} e-mail changes are started per hour.`;
            throw retryLater('too_many_emails', message, secondsUntil(Math.max(next, codeAgain), ctx.now));
          }
          return [{ type: 'EmailChangeStarted', data: c.change }];
        },
        TryEmailChangeCode(c, s, ctx) {
          const account = opened(s);
          const change = s.pendingChange;
          if (change === null || ctx.now.getTime() >= Date.parse(change.expiresAt)) throw expiredChange();
          // an expired code is code_expired, locked or not: the lock's refusal ends with the code (addendum of 2026-11-30)
          if (ctx.now.getTime() >= Date.parse(change.codeExpiresAt)) throw new DomainRefusal('code_expired', 'This code is older than 15 minutes: start the e-mail change again.', 'code');
          if (change.wrongTries >= WRONG_TRIES_PER_CODE) {
            // dead "until a new code" (spec §8): nothing passes before a new change's code, and the refusal itself ends when the dead
            // code expires (then 400 code_expired) — a finite, truthful Retry-After (decision 0038, addendum of 2026-11-30, audit lim F1)
            const ends = Math.min(Date.parse(change.codeExpiresAt), Date.parse(change.expiresAt));
            throw retryLater('too_many_attempts', `${WRONG_TRIES_PER_CODE} wrong codes: this code no longer works; start the e-mail change again for a new code.`, secondsUntil(ends, ctx.now));
          }
          if (!c.codeMatches || c.checkedHash !== change.codeHash) return [{ type: 'EmailChangeCodeRejected', data: { change_id: change.id } }];
          return [
            {
              type: 'AccountEmailChanged',
              data: { change_id: change.id, old_email: account.email, new_email: change.newEmail, undo_token_hash: c.undoTokenHash, undo_expires_at: new Date(ctx.now.getTime() + UNDO_LINK_LIFETIME_MS).toISOString() },
            },
          ];
        },
        WithdrawPasswordReset(c, s) {
          if (s.reset?.id !== c.resetId) return []; // replaced or used meanwhile: nothing of it to withdraw
          const r = c.before.reset;
          return [{ type: 'PasswordResetWithdrawn', data: { reset_id: c.resetId, requested_at: s.resetsRequestedAt.at(-1) ?? '', restored: r && { reset_id: r.id, token_hash: r.tokenHash, expires_at: r.expiresAt } } }];
        },
        WithdrawEmailChange(c, s) {
          const change = s.pendingChange;
          if (change?.id !== c.changeId) return []; // replaced, confirmed or undone meanwhile
          const p = c.before.pendingChange;
          const restored = p && { change_id: p.id, new_email: p.newEmail, code_hash: p.codeHash, code_expires_at: p.codeExpiresAt, expires_at: p.expiresAt, wrong_tries: p.wrongTries };
          return [{ type: 'EmailChangeWithdrawn', data: { change_id: c.changeId, sent_at: s.changesStartedAt.at(-1) ?? '', restored } }];
        },
        UndoEmailChange(c, s, ctx) {
          const account = opened(s);
          const undo = s.undos.find((u) => u.tokenHash === c.tokenHash);
          if (undo === undefined || ctx.now.getTime() >= Date.parse(undo.expiresAt)) throw invalidToken('undo');
          return [
            { type: 'EmailChangeUndone', data: { change_id: undo.changeId, email: undo.oldEmail, from_email: account.email } },
            { type: 'PasswordResetRequired', data: { reason: 'email_change_undone', hold_until: new Date(ctx.now.getTime() + RESET_HOLD_MS).toISOString() } },
            ...endAll(s, 'email_change_undone'),
            ...takeAwayWaysIn(s),
          ];
        },
      },
      command,
      state,
      context,
    ),
  evolve(state, event) {
    switch (event.type) {
      case 'AccountOpened':
        return { ...state, account: { id: event.data.account_id, email: event.data.email } };
      case 'SessionStarted':
        return { ...state, sessions: [...state.sessions, event.data.session_id] };
      case 'SessionEnded':
        return { ...state, sessions: state.sessions.filter((id) => id !== event.data.session_id) };
      case 'PasswordResetRequested': {
        const d = event.data;
        return { ...state, resetsRequestedAt: [...state.resetsRequestedAt.slice(-(RESET_LINKS_PER_HOUR - 1)), d.requested_at], reset: { id: d.reset_id, tokenHash: d.token_hash, expiresAt: d.expires_at } };
      }
      case 'PasswordResetWithdrawn': {
        if (state.reset?.id !== event.data.reset_id) return state;
        const r = event.data.restored;
        return { ...state, resetsRequestedAt: withoutLast(state.resetsRequestedAt, event.data.requested_at), reset: r && { id: r.reset_id, tokenHash: r.token_hash, expiresAt: r.expires_at } };
      }
      case 'EmailChangeWithdrawn': {
        if (state.pendingChange?.id !== event.data.change_id) return state;
        const r = event.data.restored;
        return {
          ...state,
          changesStartedAt: withoutLast(state.changesStartedAt, event.data.sent_at),
          pendingChange: r && { id: r.change_id, newEmail: r.new_email, codeHash: r.code_hash, codeExpiresAt: r.code_expires_at, expiresAt: r.expires_at, wrongTries: r.wrong_tries },
        };
      }
      case 'PasswordResetCompleted':
        return { ...state, reset: null, resetRequired: false, holdUntil: null, undoRemoved: null };
      case 'EmailChangeStarted': {
        const d = event.data;
        return {
          ...state,
          changesStartedAt: [...state.changesStartedAt.slice(-(EMAIL_CHANGES_PER_HOUR - 1)), d.sent_at],
          pendingChange: { id: d.change_id, newEmail: d.new_email, codeHash: d.code_hash, codeExpiresAt: d.code_expires_at, expiresAt: d.expires_at, wrongTries: 0 },
        };
      }
      case 'EmailChangeCodeRejected':
        return state.pendingChange === null || state.pendingChange.id !== event.data.change_id ? state : { ...state, pendingChange: { ...state.pendingChange, wrongTries: state.pendingChange.wrongTries + 1 } };
      case 'AccountEmailChanged': {
        const d = event.data;
        const undo: UndoLink = { changeId: d.change_id, tokenHash: d.undo_token_hash, oldEmail: d.old_email, newEmail: d.new_email, expiresAt: d.undo_expires_at };
        // a reset link sent to the old address stops working
        return { ...state, account: state.account && { ...state.account, email: d.new_email }, pendingChange: null, reset: null, undos: [...state.undos, undo] };
      }
      case 'EmailChangeUndone':
        // every other undo, change in progress and reset link ends with it
        return {
          ...state,
          account: state.account && { ...state.account, email: event.data.email },
          pendingChange: null,
          reset: null,
          undos: [],
          undoRemoved: state.undoRemoved ?? { passkeys: 0, twoFactor: false },
        };
      case 'PasswordResetRequired':
        return { ...state, resetRequired: true, holdUntil: event.data.hold_until };
      case 'PasskeyAdded':
        return state.passkeys.includes(event.data.passkey_id) ? state : { ...state, passkeys: [...state.passkeys, event.data.passkey_id] };
      case 'PasskeyRemoved': {
        const removed = state.undoRemoved !== null && event.data.reason === 'email_change_undone' && state.passkeys.includes(event.data.passkey_id);
        return {
          ...state,
          passkeys: state.passkeys.filter((id) => id !== event.data.passkey_id),
          undoRemoved: removed && state.undoRemoved ? { ...state.undoRemoved, passkeys: state.undoRemoved.passkeys + 1 } : state.undoRemoved,
        };
      }
      case 'TwoFactorEnabled':
        return { ...state, twoFactorSetupId: event.data.setup_id };
      case 'TwoFactorDisabled': {
        const turnedOff = state.undoRemoved !== null && event.data.reason === 'email_change_undone' && state.twoFactorSetupId !== null;
        return { ...state, twoFactorSetupId: null, undoRemoved: turnedOff && state.undoRemoved ? { ...state.undoRemoved, twoFactor: true } : state.undoRemoved };
      }
      case 'PasskeyUsed':
      case 'SessionSteppedUp':
      case 'TwoFactorSetupStarted':
      case 'TwoFactorCodeAccepted':
        return state;
      default:
        return ignoreUnknown(event as never, state);
    }
  },
  fromStored: asAccountStreamEvent,
};

/** The code lifetime of an e-mail change (the same 15 minutes as a sign-up's). */
export const EMAIL_CHANGE_CODE_LIFETIME_MS = CODE_LIFETIME_MS;

/** When a pending change's code was sent (its code ends 15 minutes later; a restored change keeps its times). */
function codeSentAt(change: PendingEmailChange): number {
  return Date.parse(change.codeExpiresAt) - EMAIL_CHANGE_CODE_LIFETIME_MS;
}
