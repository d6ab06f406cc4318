import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { ACCOUNTS_CLOCK, AccountsClock } from '../ports';

/** A WebAuthn challenge is answered within this time (decision 0037). */
export const WEBAUTHN_CHALLENGE_MS = 5 * 60 * 1000;

/**
 * What a challenge is for, and the browser it is bound to (a session id, or the hash of the
 * `webauthn` cookie); a passkey sign-up's to the sign-up (whose cookie both of its calls check).
 */
export type ChallengeBinding = { purpose: 'register' | 'step_up'; sessionId: string } | { purpose: 'sign_in'; browserHash: string } | { purpose: 'sign_up'; signupId: string };

const key = (b: ChallengeBinding) => (b.purpose === 'sign_in' ? `sign_in:${b.browserHash}` : b.purpose === 'sign_up' ? `sign_up:${b.signupId}` : `${b.purpose}:${b.sessionId}`);

/**
 * WebAuthn challenges (migration 014): 32 random bytes, base64url, one per purpose and browser
 * (a newer one replaces it), valid five minutes on the injected clock, and single use — taking
 * one deletes it in the same statement, so a replayed answer finds none in any process.
 */
@Injectable()
export class WebauthnChallenges {
  constructor(
    @Inject(DATABASE) private readonly db: Sql,
    @Inject(ACCOUNTS_CLOCK) private readonly clock: AccountsClock,
  ) {}

  async issue(binding: ChallengeBinding, accountId: string | null): Promise<string> {
    const challenge = randomBytes(32).toString('base64url');
    const now = this.clock();
    await this.db.query(`DELETE FROM webauthn_challenges WHERE expires_at < $1`, [now.toISOString()], 'webauthn_challenges_sweep');
    await this.db.query(
      `INSERT INTO webauthn_challenges (binding, challenge, account_id, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (binding) DO UPDATE SET challenge = EXCLUDED.challenge, account_id = EXCLUDED.account_id, expires_at = EXCLUDED.expires_at`,
      [key(binding), challenge, accountId, new Date(now.getTime() + WEBAUTHN_CHALLENGE_MS).toISOString()],
      'webauthn_challenges_issue',
    );
    return challenge;
  }

  /**
   * The challenge waiting for this browser and purpose, left in place, or null when none, or
   * expired: a passkey sign-up checks its registration before the code, and takes the challenge
   * only once the sign-up completed (a wrong code must not cost the person a new passkey).
   */
  async peek(binding: ChallengeBinding): Promise<{ challenge: string; accountId: string | null } | null> {
    const { rows } = await this.db.query<{ challenge: string; account_id: string | null; expires_at: string | Date }>(
      `SELECT challenge, account_id, expires_at FROM webauthn_challenges WHERE binding = $1`,
      [key(binding)],
      'webauthn_challenges_peek',
    );
    const row = rows[0];
    if (!row || new Date(row.expires_at).getTime() <= this.clock().getTime()) return null;
    return { challenge: row.challenge, accountId: row.account_id };
  }

  /** The challenge waiting for this browser and purpose, taken (never again), or null when none, or expired. */
  async take(binding: ChallengeBinding): Promise<{ challenge: string; accountId: string | null } | null> {
    const { rows } = await this.db.query<{ challenge: string; account_id: string | null; expires_at: string | Date }>(
      `DELETE FROM webauthn_challenges WHERE binding = $1 RETURNING challenge, account_id, expires_at`,
      [key(binding)],
      'webauthn_challenges_take',
    );
    const row = rows[0];
    if (!row || new Date(row.expires_at).getTime() <= this.clock().getTime()) return null;
    return { challenge: row.challenge, accountId: row.account_id };
  }
}
