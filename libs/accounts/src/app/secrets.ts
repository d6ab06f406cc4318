import { createHash, randomBytes, randomInt } from 'node:crypto';

/** A 256-bit random token (session, device and sign-up cookies), base64url. */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** SHA-256 (hex) of a high-entropy token: what is stored of it. */
export const tokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** A 6-digit e-mailed code, uniformly drawn. */
export const newCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** The fingerprint naming an address's stream (account_email-…): SHA-256 of the lower-cased, trimmed address. */
export const emailFingerprint = (email: string): string => createHash('sha256').update(email.trim().toLowerCase(), 'utf8').digest('hex');

/** A well-formed token as the cookies carry it (anything else is no token). */
export const isToken = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
