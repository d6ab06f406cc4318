import { createHash, randomBytes } from 'node:crypto';

/**
 * The token of a link e-mailed to a person (a password reset or an e-mail change's undo,
 * decision 0038; a wallet change's cancel link, decision 0041): `<id>.<256 random bits,
 * base64url>`. The id names the stream, so no lookup table is needed; what is stored is the
 * SHA-256 (hex) of the whole token, which only the e-mail holds.
 */
export function newLinkToken(id: string): { token: string; hash: string } {
  const token = `${id}.${randomBytes(32).toString('base64url')}`;
  return { token, hash: linkTokenHash(token) };
}

/** The id and hash a link token names, or null for anything malformed (an id `isId` refuses, a secret that is not 43 base64url characters). */
export function readLinkToken(token: unknown, isId: (id: string) => boolean): { id: string; hash: string } | null {
  if (typeof token !== 'string') return null;
  const dot = token.indexOf('.');
  if (dot < 0) return null;
  const id = token.slice(0, dot);
  if (!isId(id) || !/^[A-Za-z0-9_-]{43}$/.test(token.slice(dot + 1))) return null;
  return { id, hash: linkTokenHash(token) };
}

const linkTokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');
