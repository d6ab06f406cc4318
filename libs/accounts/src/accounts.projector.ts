import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import { eventTime } from '@lib/payments';
import { asAccountEvent } from './events';
import { projectRecoveryEvent } from './recovery/recovery.projection';
import { ACCOUNT_STREAM } from './stream-categories';

import { emailKey } from './email-key';

/** The key an address is found by: trimmed, lower case. */
export { emailKey };

/**
 * The `accounts` projection (decision 0034; deterministic: event data and times only):
 * - `accounts`: each person, found by e-mail at sign-in, with the password hash to check;
 * - `account_businesses`: the businesses each person acts for, with their role;
 * - `account_sessions`: sessions started and not ended, found by their token's hash (the
 *   authentication lookup); `account_devices`: the browsers that signed in to each account.
 * When a session was last used is not an event: the `account_session_activity` table
 * (migration 011) keeps it, outside the log.
 */
export const accountsProjector: Projector = {
  name: 'accounts',
  tables: ['account_devices', 'account_sessions', 'account_businesses', 'accounts'],
  schema: `
    CREATE TABLE IF NOT EXISTS accounts (
      id            text        PRIMARY KEY,
      email         text        NOT NULL,
      email_key     text        NOT NULL,
      password_hash text        NOT NULL,
      created_at    timestamptz NOT NULL,
      updated_at    timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX IF NOT EXISTS accounts_email_key ON accounts (email_key);
    CREATE TABLE IF NOT EXISTS account_businesses (
      account_id  text        NOT NULL,
      business_id text        NOT NULL,
      role        text        NOT NULL,
      created_at  timestamptz NOT NULL,
      PRIMARY KEY (account_id, business_id)
    );
    CREATE INDEX IF NOT EXISTS account_businesses_business ON account_businesses (business_id);
    CREATE TABLE IF NOT EXISTS account_sessions (
      id          text        PRIMARY KEY,
      account_id  text        NOT NULL,
      token_hash  text        NOT NULL,
      device_hash text        NOT NULL,
      method      text        NOT NULL,
      user_agent  text,
      created_at  timestamptz NOT NULL,
      expires_at  timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX IF NOT EXISTS account_sessions_token ON account_sessions (token_hash);
    CREATE INDEX IF NOT EXISTS account_sessions_account ON account_sessions (account_id, created_at DESC);
    CREATE TABLE IF NOT EXISTS account_devices (
      account_id  text NOT NULL,
      device_hash text NOT NULL,
      PRIMARY KEY (account_id, device_hash)
    );
  `,
  async handle(events: RecordedEvent[], tx: Sql): Promise<void> {
    for (const event of events) {
      if (ACCOUNT_STREAM.owns(event.stream) && (await projectRecoveryEvent(event, ACCOUNT_STREAM.parse(event.stream)!, eventTime(event), tx))) continue;
      const e = asAccountEvent(event);
      if (e === null) continue;
      const accountId = ACCOUNT_STREAM.parse(event.stream)!;
      const at = eventTime(event);
      switch (e.type) {
        case 'AccountOpened':
          await tx.query(
            `INSERT INTO accounts (id, email, email_key, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (id) DO NOTHING`,
            [accountId, e.data.email, emailKey(e.data.email), e.data.password_hash ?? '', at], // '': no password (a passkey sign-up; decision 0037), which no password verifies
          );
          break;
        case 'AccountBusinessJoined':
          await tx.query(
            `INSERT INTO account_businesses (account_id, business_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, business_id) DO UPDATE SET role = EXCLUDED.role`,
            [accountId, e.data.business_id, e.data.role, at],
          );
          break;
        case 'SessionStarted': {
          const d = e.data;
          await tx.query(
            `INSERT INTO account_sessions (id, account_id, token_hash, device_hash, method, user_agent, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
            [d.session_id, accountId, d.token_hash, d.device_hash, d.method, d.user_agent, at, d.expires_at],
          );
          await tx.query(`INSERT INTO account_devices (account_id, device_hash) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [accountId, d.device_hash]);
          break;
        }
        case 'SessionEnded':
          await tx.query(`DELETE FROM account_sessions WHERE id = $1`, [e.data.session_id]);
          break;
        case 'AccountPasswordChanged':
          await tx.query(`UPDATE accounts SET password_hash = $2, updated_at = $3 WHERE id = $1`, [accountId, e.data.password_hash, at]);
          break;
      }
    }
  },
};
