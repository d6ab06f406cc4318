import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import { eventTime } from '@lib/payments';
import { ACCOUNT_STREAM } from '../stream-categories';
import { asPasskeyEvent } from './passkey-events';

/**
 * The `account_passkeys` projection (decision 0037; deterministic: event data and times only):
 * - `account_passkeys`: each person's passkeys, found by credential id at sign-in (unique: a
 *   credential is on one account), with its public key and signature counter;
 * - `account_step_ups`: each session's last step-up, which `@RequiresStepUp` reads.
 */
export const passkeysProjector: Projector = {
  name: 'account_passkeys',
  tables: ['account_step_ups', 'account_passkeys'],
  schema: `
    CREATE TABLE IF NOT EXISTS account_passkeys (
      id            text        PRIMARY KEY,
      account_id    text        NOT NULL,
      credential_id text        NOT NULL,
      public_key    text        NOT NULL,
      counter       bigint      NOT NULL,
      transports    text        NOT NULL,
      name          text        NOT NULL,
      device_type   text        NOT NULL,
      backed_up     boolean     NOT NULL,
      created_at    timestamptz NOT NULL,
      last_used_at  timestamptz
    );
    CREATE UNIQUE INDEX IF NOT EXISTS account_passkeys_credential ON account_passkeys (credential_id);
    CREATE INDEX IF NOT EXISTS account_passkeys_account ON account_passkeys (account_id, created_at);
    CREATE TABLE IF NOT EXISTS account_step_ups (
      session_id text        PRIMARY KEY,
      account_id text        NOT NULL,
      method     text        NOT NULL,
      at         timestamptz NOT NULL
    );
  `,
  async handle(events: RecordedEvent[], tx: Sql): Promise<void> {
    for (const event of events) {
      const e = asPasskeyEvent(event);
      if (e === null) continue;
      const accountId = ACCOUNT_STREAM.parse(event.stream)!;
      switch (e.type) {
        case 'PasskeyAdded': {
          const d = e.data;
          await tx.query(
            `INSERT INTO account_passkeys (id, account_id, credential_id, public_key, counter, transports, name, device_type, backed_up, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
            [d.passkey_id, accountId, d.credential_id, d.public_key, d.counter, JSON.stringify(d.transports), d.name, d.device_type, d.backed_up, eventTime(event)],
          );
          break;
        }
        case 'PasskeyRemoved':
          await tx.query(`DELETE FROM account_passkeys WHERE id = $1`, [e.data.passkey_id]);
          break;
        case 'PasskeyUsed':
          await tx.query(`UPDATE account_passkeys SET counter = $2, last_used_at = $3 WHERE id = $1`, [e.data.passkey_id, e.data.counter, e.data.at]);
          break;
        case 'SessionSteppedUp':
          await tx.query(
            `INSERT INTO account_step_ups (session_id, account_id, method, at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (session_id) DO UPDATE SET method = EXCLUDED.method, at = GREATEST(account_step_ups.at, EXCLUDED.at)`,
            [e.data.session_id, accountId, e.data.method, e.data.at],
          );
          break;
      }
    }
  },
};
