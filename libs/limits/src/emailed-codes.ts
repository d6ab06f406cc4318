import { retryAfterSec } from './policies';

/**
 * The e-mailed-code rules of spec §8 (sign-up, e-mail change, new alert e-mail), as pure
 * functions over the flow's own state: each flow keeps its codes in its own stream, so these
 * are not counters in the LimitStore (decision 0033).
 */
export const EMAILED_CODE_RULES = Object.freeze({
  /** Wrong tries per code; then 429 too_many_attempts until a new code. */
  wrongTriesPerCode: 5,
  /** A new code can be sent this long after the last one. */
  resendAfterSec: 60,
  /** Codes per flow. */
  codesPerFlow: 5,
  /** A code is valid this long (then 400 code_expired). */
  validForSec: 15 * 60,
});

/** The flow's current code: when it was sent and how many wrong tries it had. */
export interface EmailedCodeState {
  sentAtMs: number;
  wrongTries: number;
}

export type EmailedCodeAttempt =
  | { check: true }
  | { check: false; refused: 'too_many_attempts'; retryAfterSec: number }
  | { check: false; refused: 'code_expired' };

/**
 * Before comparing a typed code with the flow's current one: `check` it, or refuse. An expired
 * code (15 minutes after it was sent) is 400 code_expired, locked or not; a code with 5 wrong
 * tries is dead until a new one (429 too_many_attempts) and Retry-After is the seconds until it
 * expires (at least 1): the refusal ends then (code_expired, ask for a new code), never sooner
 * unless a new code is sent (decision 0033, addendum of 2026-11-30). The caller counts a wrong
 * try in its own state.
 */
export function emailedCodeAttempt(code: EmailedCodeState, nowMs: number): EmailedCodeAttempt {
  const expiresAtMs = code.sentAtMs + EMAILED_CODE_RULES.validForSec * 1000;
  if (nowMs >= expiresAtMs) return { check: false, refused: 'code_expired' };
  if (code.wrongTries >= EMAILED_CODE_RULES.wrongTriesPerCode) return { check: false, refused: 'too_many_attempts', retryAfterSec: retryAfterSec(expiresAtMs, nowMs) };
  return { check: true };
}

export type EmailedCodeResend = { send: true } | { send: false; refused: 'too_many_emails'; retryAfterSec: number | null };

/**
 * Before sending a new code in a flow that sent `codesSent` codes, the last at `lastSentAtMs`:
 * a minute after the last (else 429 too_many_emails with Retry-After), up to 5 per flow (else
 * 429 too_many_emails without one: the flow must start again).
 */
export function emailedCodeResend(flow: { codesSent: number; lastSentAtMs: number | null }, nowMs: number): EmailedCodeResend {
  if (flow.codesSent >= EMAILED_CODE_RULES.codesPerFlow) return { send: false, refused: 'too_many_emails', retryAfterSec: null };
  if (flow.lastSentAtMs !== null) {
    const next = flow.lastSentAtMs + EMAILED_CODE_RULES.resendAfterSec * 1000;
    if (nowMs < next) return { send: false, refused: 'too_many_emails', retryAfterSec: retryAfterSec(next, nowMs) };
  }
  return { send: true };
}
