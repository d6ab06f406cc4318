import { Database } from '@lib/database';
import { ClaimingIdempotencyStore, HeldKey, StoredResponse } from './idempotency-store';

/**
 * The claim, in one statement: insert the running row, or take over a row whose time is up
 * (a running request past its lock, or a response past its TTL). A returned row means the
 * key is ours. A running row's expires_at is its locked_until, so one expires_at index
 * serves purgeExpired(). All times come from the database's clock.
 */
const BEGIN_SQL = `INSERT INTO idempotency_keys AS k (scope, key, fingerprint, state, token, response, locked_until, expires_at, created_at)
  VALUES ($1, $2, $3, 'running', $4, NULL, now() + $5::double precision * interval '1 millisecond',
          now() + $5::double precision * interval '1 millisecond', now())
  ON CONFLICT (scope, key) DO UPDATE SET
    fingerprint = EXCLUDED.fingerprint, state = 'running', token = EXCLUDED.token, response = NULL,
    locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at
  WHERE (k.state = 'running' AND k.locked_until <= now()) OR (k.state = 'done' AND k.expires_at <= now())
  RETURNING token`;

const SELECT_SQL = `SELECT fingerprint, state, response::text AS response, expires_at <= now() AS expired
  FROM idempotency_keys WHERE scope = $1 AND key = $2`;

/** Only the live holder: a lock past its time has lost the key, as it has in Redis (where the key is gone). */
const COMPLETE_SQL = `UPDATE idempotency_keys
  SET state = 'done', token = NULL, response = $4::jsonb, locked_until = NULL,
      expires_at = now() + $5::double precision * interval '1 millisecond'
  WHERE scope = $1 AND key = $2 AND state = 'running' AND token = $3 AND locked_until > now()`;

const RELEASE_SQL = `DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND state = 'running' AND token = $3`;

const PURGE_SQL = `DELETE FROM idempotency_keys WHERE expires_at <= now()`;

interface KeyRow {
  fingerprint: string;
  state: 'running' | 'done';
  response: string | null;
  expired: boolean;
}

/**
 * Idempotency keys in the SQL database (PostgreSQL or the embedded PGlite), table
 * idempotency_keys (eventstore/postgres/002_idempotency.sql). Safe with several replicas on
 * one PostgreSQL: the primary key decides who claims a key. Expired rows are ignored and
 * taken over; purgeExpired() deletes them (run it now and then, for example from the worker).
 */
export class SqlIdempotencyStore extends ClaimingIdempotencyStore {
  /** The database stays the caller's: close() does not close it. */
  constructor(private readonly db: Database) {
    super();
  }

  protected async claim(scope: string, key: string, fingerprint: string, token: string, lockMs: number): Promise<boolean> {
    const claimed = await this.db.query<{ token: string }>(BEGIN_SQL, [scope, key, fingerprint, token, lockMs], 'idempotency_begin');
    return claimed.rows.length > 0;
  }

  /** Null when the row was released, purged or expired since the claim failed. */
  protected async readHeld(scope: string, key: string): Promise<HeldKey | null> {
    const { rows } = await this.db.query<KeyRow>(SELECT_SQL, [scope, key], 'idempotency_select');
    const row = rows[0];
    if (!row || row.expired) return null;
    if (row.state === 'done') return { state: 'done', fingerprint: row.fingerprint, response: parseResponse(row.response) };
    return { state: 'running', fingerprint: row.fingerprint };
  }

  protected async storeResponse(scope: string, key: string, token: string, responseJson: string, ttlMs: number): Promise<void> {
    await this.db.query(COMPLETE_SQL, [scope, key, token, responseJson, ttlMs], 'idempotency_complete');
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    await this.db.query(RELEASE_SQL, [scope, key, token], 'idempotency_release');
  }

  /** Deletes the rows whose time is up (finished past their TTL, running past their lock); returns how many. */
  async purgeExpired(): Promise<number> {
    const result = await this.db.query(PURGE_SQL, [], 'idempotency_purge');
    return result.rowCount;
  }

  async close(): Promise<void> {
    // Nothing of its own to close: the database belongs to whoever opened it.
  }
}

function parseResponse(text: string | null): StoredResponse {
  if (text === null) throw new Error('a finished idempotency key has no response');
  return JSON.parse(text) as StoredResponse;
}
