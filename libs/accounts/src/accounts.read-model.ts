import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { emailKey } from './accounts.projector';
import type { AccountRole } from './events';
import { isAccountId, isSessionId } from './stream-categories';
import { AccountView, SessionView } from './views';

/** How long a session lives unused, and at most (decision 0034). */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 14 * 24 * 60 * 60 * 1000;
/** A session's last use is written at most this often. */
const ACTIVITY_GRANULARITY_MS = 60 * 1000;

export interface AccountRow {
  id: string;
  email: string;
  password_hash: string;
  created_at: string | Date;
}

interface SessionRow {
  id: string;
  account_id: string;
  device_hash: string;
  method: 'sign_up' | 'password' | 'passkey';
  user_agent: string | null;
  created_at: string | Date;
  expires_at: string | Date;
  last_seen_at: string | Date | null;
}

/** A live session found by its token, with its person. */
export interface LiveSession {
  sessionId: string;
  accountId: string;
  email: string;
  deviceHash: string;
}

const iso = (v: string | Date) => new Date(v).toISOString();

/** Queries over the `accounts` projection and the session activity table. */
@Injectable()
export class AccountsReadModel {
  constructor(@Inject(DATABASE) private readonly db: Sql) {}

  async byEmail(email: string): Promise<AccountRow | null> {
    const { rows } = await this.db.query<AccountRow>(`SELECT id, email, password_hash, created_at FROM accounts WHERE email_key = $1`, [emailKey(email)], 'accounts_by_email');
    return rows[0] ?? null;
  }

  async byId(accountId: string): Promise<AccountRow | null> {
    if (!isAccountId(accountId)) return null;
    const { rows } = await this.db.query<AccountRow>(`SELECT id, email, password_hash, created_at FROM accounts WHERE id = $1`, [accountId], 'accounts_by_id');
    return rows[0] ?? null;
  }

  /** GET /me. */
  async view(accountId: string): Promise<AccountView | null> {
    const account = await this.byId(accountId);
    if (account === null) return null;
    const { rows } = await this.db.query<{ id: string; name: string; role: AccountRole }>(
      `SELECT b.id, b.name, m.role FROM account_businesses m JOIN businesses b ON b.id = m.business_id WHERE m.account_id = $1 ORDER BY m.created_at, b.id`,
      [accountId],
      'accounts_memberships',
    );
    return { kind: 'account', id: account.id, email: account.email, businesses: rows.map((r) => ({ id: r.id, name: r.name, role: r.role })), created_at: iso(account.created_at) };
  }

  /** The person's role for a business, or null when they cannot act for it (any business id, well-formed or not). */
  async roleFor(accountId: string, businessId: string): Promise<AccountRole | null> {
    const { rows } = await this.db.query<{ role: AccountRole }>(`SELECT role FROM account_businesses WHERE account_id = $1 AND business_id = $2`, [accountId, businessId], 'accounts_role');
    return rows[0]?.role ?? null;
  }

  /**
   * The session a token's hash names, when it is neither ended, past its absolute end, nor idle
   * longer than SESSION_IDLE_MS at `now`; its last use is noted (at most once a minute).
   */
  async live(tokenHash: string, now: Date): Promise<LiveSession | null> {
    const { rows } = await this.db.query<SessionRow & { email: string }>(
      `SELECT s.id, s.account_id, s.device_hash, s.method, s.user_agent, s.created_at, s.expires_at, a.last_seen_at, acc.email
         FROM account_sessions s JOIN accounts acc ON acc.id = s.account_id LEFT JOIN account_session_activity a ON a.session_id = s.id
        WHERE s.token_hash = $1`,
      [tokenHash],
      'accounts_session_by_token',
    );
    const row = rows[0];
    if (!row || !this.alive(row, now)) return null;
    const lastSeen = lastSeenOf(row).getTime();
    if (now.getTime() - lastSeen >= ACTIVITY_GRANULARITY_MS) await this.touch(row.id, now);
    return { sessionId: row.id, accountId: row.account_id, email: row.email, deviceHash: row.device_hash };
  }

  /** Notes a session's use at `now` (also at its start, on the injected clock). */
  async touch(sessionId: string, now: Date): Promise<void> {
    await this.db.query(
      `INSERT INTO account_session_activity (session_id, last_seen_at) VALUES ($1, $2) ON CONFLICT (session_id) DO UPDATE SET last_seen_at = GREATEST(account_session_activity.last_seen_at, EXCLUDED.last_seen_at)`,
      [sessionId, now.toISOString()],
      'accounts_session_touch',
    );
  }

  /** GET /sessions: the person's live sessions, newest first, the current one marked. */
  async sessions(accountId: string, currentSessionId: string | null, now: Date): Promise<SessionView[]> {
    const { rows } = await this.db.query<SessionRow>(
      `SELECT s.id, s.account_id, s.device_hash, s.method, s.user_agent, s.created_at, s.expires_at, a.last_seen_at
         FROM account_sessions s LEFT JOIN account_session_activity a ON a.session_id = s.id
        WHERE s.account_id = $1 ORDER BY s.created_at DESC, s.id DESC`,
      [accountId],
      'accounts_sessions',
    );
    return rows.filter((r) => this.alive(r, now)).map((r) => this.sessionView(r, currentSessionId));
  }

  /** One of the person's live sessions (another person's reads as none). */
  async session(accountId: string, sessionId: string, currentSessionId: string | null, now: Date): Promise<SessionView | null> {
    if (!isSessionId(sessionId)) return null;
    return (await this.sessions(accountId, currentSessionId, now)).find((s) => s.id === sessionId) ?? null;
  }

  private alive(row: SessionRow, now: Date): boolean {
    const lastSeen = lastSeenOf(row).getTime();
    return now.getTime() < new Date(row.expires_at).getTime() && now.getTime() < lastSeen + SESSION_IDLE_MS;
  }

  private sessionView(row: SessionRow, currentSessionId: string | null): SessionView {
    const lastSeen = lastSeenOf(row);
    const idleEnd = lastSeen.getTime() + SESSION_IDLE_MS;
    return {
      kind: 'session',
      id: row.id,
      current: row.id === currentSessionId,
      method: row.method,
      user_agent: row.user_agent,
      created_at: iso(row.created_at),
      last_seen_at: lastSeen.toISOString(),
      expires_at: new Date(Math.min(idleEnd, new Date(row.expires_at).getTime())).toISOString(),
    };
  }
}

/**
 * A session's last use: noted on the injected clock, never before its start (a session stored
 * before the start and its first use came from one clock reading could show its first use a
 * moment before its `created_at`; decision 0034 addendum 2026-11-29).
 */
function lastSeenOf(row: Pick<SessionRow, 'created_at' | 'last_seen_at'>): Date {
  const created = new Date(row.created_at);
  if (row.last_seen_at === null) return created;
  const seen = new Date(row.last_seen_at);
  return seen.getTime() < created.getTime() ? created : seen;
}
