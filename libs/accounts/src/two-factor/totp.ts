import { createHash, randomBytes, randomInt } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import { toString as qrSvg } from 'qrcode';

/**
 * TOTP and recovery codes for two-step sign-in (decision 0036), through `otplib` (v13): RFC 6238
 * with what authenticator apps expect (SHA-1, 6 digits, 30-second steps, a 160-bit Base32
 * secret). A code of the step before or after the current one passes (clocks drift); one of the
 * step last accepted or earlier never does. Nothing here logs.
 */

export const TOTP_ISSUER = 'Payments';
const STEP_TOLERANCE_SEC = 30;

/** A new 160-bit secret, Base32 (as authenticator apps take it). */
export const newTotpSecret = (): string => generateSecret({ length: 20 });

/** The `otpauth://totp/…` URI an authenticator app reads from the QR code. */
export const totpUri = (secret: string, email: string): string => generateURI({ issuer: TOTP_ISSUER, label: email, secret });

/** The QR code of the URI, as an SVG data URI (an <img src> the dashboard shows as it is). */
export async function totpQrCode(uri: string): Promise<string> {
  const svg = await qrSvg(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 4, color: { dark: '#000000', light: '#ffffff' } });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

/** A 6-digit code as typed (spaces ignored), or null when it is not one (malformed: no try counted). */
export function normalTotpCode(code: string): string | null {
  const digits = code.replace(/\s+/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
}

/** The TOTP step the code matches at `now` (±1 step), later than `afterTimeStep`; null when none. */
export async function totpStep(secret: string, code: string, now: Date, afterTimeStep: number | null): Promise<number | null> {
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: STEP_TOLERANCE_SEC,
    ...(afterTimeStep !== null ? { afterTimeStep } : {}),
  });
  // a TOTP verification's result carries the step it matched (the HOTP member of the union does not)
  return result.valid && 'timeStep' in result ? (result as { timeStep: number }).timeStep : null;
}

/** Crockford's Base32 (no I, L, O, U): what a person reads off a printout and types back. */
const RECOVERY_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RECOVERY_LENGTH = 16; // 80 bits

/** `count` new recovery codes, written XXXX-XXXX-XXXX-XXXX (80 random bits each). */
export function newRecoveryCodes(count: number): string[] {
  return Array.from({ length: count }, () => {
    let code = '';
    for (let i = 0; i < RECOVERY_LENGTH; i++) code += RECOVERY_ALPHABET[randomInt(0, RECOVERY_ALPHABET.length)];
    return code.match(/.{4}/g)!.join('-');
  });
}

/** A recovery code as typed (case, spaces and dashes ignored; O read as 0, I and L as 1), or null when malformed. */
export function normalRecoveryCode(code: string): string | null {
  const plain = code.toUpperCase().replace(/[\s-]+/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  return plain.length === RECOVERY_LENGTH && [...plain].every((c) => RECOVERY_ALPHABET.includes(c)) ? plain : null;
}

/**
 * What is stored of a recovery code: SHA-256 of the person's id and the normalized code. 80
 * random bits need no slow hash (no dictionary, no feasible search); the id keeps equal codes of
 * two people apart.
 */
export const recoveryCodeHash = (accountId: string, normalized: string): string => createHash('sha256').update(`recovery_code:${accountId}:${normalized}`, 'utf8').digest('hex');

/** A new challenge id: `tfc_` and 192 random bits (hex). Only its SHA-256 is recorded (it names the challenge's stream). */
export const newChallengeId = (): string => `tfc_${randomBytes(24).toString('hex')}`;
export const isChallengeId = (value: string): boolean => /^tfc_[0-9a-f]{48}$/.test(value);
export const challengeHash = (challengeId: string): string => createHash('sha256').update(challengeId, 'utf8').digest('hex');
