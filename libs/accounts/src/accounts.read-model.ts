import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { Page, accountFilters, pageRequest, toPage, unfilteredListQuery } from '@lib/http';
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

const SESSIONS_LIST = 'sessions';
const SESSION_COLUMNS = 's.id, s.account_id, s.device_hash, s.method, s.user_agent, s.created_at, s.expires_at, a.last_seen_at';
const SESSIONS_WITH_ACTIVITY = 'account_sessions s LEFT JOIN account_session_activity a ON a.session_id = s.id';

/**
 * The SQL condition of a session `s` (with its activity `a`) live at `now`, its two values added
 * to `params`: before its absolute end, and used within SESSION_IDLE_MS, its last use counted from
 * no earlier than its start (lastSeenOf). Every read of a session goes through it, so a session
 * is live or not the same way for the cookie, the list and DELETE /sessions/{id}.
 */
function liveAt(now: Date, params: unknown[]): string {
  const end = params.push(now.toISOString());
  const idleSince = params.push(new Date(now.getTime() - SESSION_IDLE_MS).toISOString());
  return `s.expires_at > $${end}::timestamptz AND GREATEST(s.created_at, COALESCE(a.last_seen_at, s.created_at)) > $${idleSince}::timestamptz`;
}

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
    const params: unknown[] = [tokenHash];
    const { rows } = await this.db.query<SessionRow & { email: string }>(
      `SELECT ${SESSION_COLUMNS}, acc.email
         FROM account_sessions s JOIN accounts acc ON acc.id = s.account_id LEFT JOIN account_session_activity a ON a.session_id = s.id
        WHERE s.token_hash = $1 AND ${liveAt(now, params)}`,
      params,
      'accounts_session_by_token',
    );
    const row = rows[0];
    if (!row) return null;
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

  /**
   * GET /sessions: a page of the person's live sessions, newest first (created_at, then id), after
   * the cursor's (bound to this list and to the person), the current one marked.
   */
  async sessions(accountId: string, currentSessionId: string | null, now: Date, query: Record<string, unknown> | null | undefined): Promise<Page<SessionView>> {
    const bound = accountFilters(accountId);
    const { limit, after } = pageRequest(SESSIONS_LIST, bound, unfilteredListQuery(query));
    const params: unknown[] = [accountId];
    const param = (value: unknown): string => `$${params.push(value)}`;
    const where = ['s.account_id = $1', liveAt(now, params)];
    if (after) where.push(`(s.created_at, s.id) < (${param(after.created_at)}::timestamptz, ${param(after.id)})`);
    const { rows } = await this.db.query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM ${SESSIONS_WITH_ACTIVITY} WHERE ${where.join(' AND ')} ORDER BY s.created_at DESC, s.id DESC LIMIT ${param(limit + 1)}`,
      params,
    );
    return toPage(SESSIONS_LIST, bound, rows.map((r) => this.sessionView(r, currentSessionId)), limit, (v) => ({ created_at: v.created_at, id: v.id }));
  }

  /** One of the person's live sessions (another person's reads as none). */
  async session(accountId: string, sessionId: string, currentSessionId: string | null, now: Date): Promise<SessionView | null> {
    if (!isSessionId(sessionId)) return null;
    const params: unknown[] = [accountId, sessionId];
    const { rows } = await this.db.query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM ${SESSIONS_WITH_ACTIVITY} WHERE s.account_id = $1 AND s.id = $2 AND ${liveAt(now, params)}`,
      params,
      'accounts_session',
    );
    return rows[0] ? this.sessionView(rows[0], currentSessionId) : null;
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
