import { randomBytes, randomInt, scryptSync, timingSafeEqual } from 'node:crypto';
import { renderMail } from '@lib/mail';
import type { BusinessMailMessage } from './business-mail';

/**
 * The alert e-mail's confirmation code (spec §4 "POST /businesses/{id}/alert-email/confirm", §8;
 * decision 0035). A new address waits as `pending_alert_email` until the 6-digit code e-mailed
 * to it is confirmed. The code is never stored: the event keeps a random salt and its scrypt hash
 * (deterministic, so the decider checks a code purely).
 */
export const ALERT_CODE_TTL_MS = 15 * 60_000;
/** How long a pending address waits for its confirmation (from the first code sent to it). */
export const ALERT_PENDING_TTL_MS = 24 * 60 * 60_000;
/** Wrong codes accepted before 429 too_many_attempts (until a new code). */
export const ALERT_MAX_WRONG_CODES = 5;
/** A new code for the same address at most this often (429 too_many_emails before). */
export const ALERT_RESEND_GAP_MS = 60_000;
/** Codes sent for one pending address at most (429 too_many_emails after). */
export const ALERT_MAX_CODES = 5;

const SCRYPT = { N: 1 << 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** A fresh 6-digit code (uniform, leading zeros kept). */
export function newAlertCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** A fresh salt for one code (hex). */
export function newCodeSalt(): string {
  return randomBytes(16).toString('hex');
}

/** The stored form of a code: scrypt(code, salt), hex. */
export function hashAlertCode(code: string, salt: string): string {
  return scryptSync(code, Buffer.from(salt, 'hex'), 32, SCRYPT).toString('hex');
}

/** The code as typed with spaces removed, or null when that is not 6 digits. */
export function normalizeAlertCode(input: string): string | null {
  const code = input.replace(/\s+/g, '');
  return /^[0-9]{6}$/.test(code) ? code : null;
}

/** Whether `code` (normalized) is the one hashed as `hash` with `salt`; constant time. */
export function alertCodeMatches(code: string, salt: string, hash: string): boolean {
  const expected = Buffer.from(hash, 'hex');
  const actual = Buffer.from(hashAlertCode(code, salt), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The e-mail that carries a code: plain text and HTML from one description (renderMail: nothing remote, nothing tracked). */
export function alertCodeMessage(businessName: string, to: string, code: string): BusinessMailMessage {
  return {
    to,
    ...renderMail({
      title: `Confirm the alert address of ${businessName}`,
      paragraphs: [`Enter this code to receive ${businessName}'s payment alerts at this address. It is valid for 15 minutes.`],
      code,
      footer: 'If you did not ask for it, ignore this e-mail: nothing changes.',
    }),
  };
}
