import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { SESSION_ABSOLUTE_MS } from '../../accounts.read-model';
import { ACCOUNTS_CLOCK, AccountsClock } from '../../ports';
import { STEP_UP_VALIDITY_MS } from '../passkey.decider';
import { PasskeysReadModel } from '../passkeys.read-model';

/**
 * Whether a session proved its person within the last 15 minutes (spec §5.6; decision 0037):
 * a step-up (SessionSteppedUp), or the sign-in that started it with a password or a passkey (a
 * proof too; a sign-up's session is not one) — its start read as its absolute end less 14 days, both on the
 * injected clock. The API's
 * `@RequiresStepUp` asks it.
 */
@Injectable()
export class StepUpCheck {
  constructor(
    private readonly passkeys: PasskeysReadModel,
    @Inject(DATABASE) private readonly db: Sql,
    @Inject(ACCOUNTS_CLOCK) private readonly clock: AccountsClock,
  ) {}

  async holds(sessionId: string): Promise<boolean> {
    const now = this.clock().getTime();
    const within = (at: Date | null) => at !== null && at.getTime() <= now + 1000 && now - at.getTime() < STEP_UP_VALIDITY_MS;
    if (within(await this.passkeys.steppedUpAt(sessionId))) return true;
    const { rows } = await this.db.query<{ method: string; expires_at: string | Date }>(`SELECT method, expires_at FROM account_sessions WHERE id = $1`, [sessionId], 'passkeys_session_start');
    const row = rows[0];
    return row !== undefined && (row.method === 'password' || row.method === 'passkey') && within(new Date(new Date(row.expires_at).getTime() - SESSION_ABSOLUTE_MS));
  }
}
