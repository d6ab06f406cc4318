import { Injectable } from '@nestjs/common';
import { DomainRefusal } from '@lib/domain';
import type { WriteMeta } from '@lib/eventstore';
import { newId } from '@lib/http';
import { AccountsReadModel, SESSION_ABSOLUTE_MS } from '../accounts.read-model';
import type { BrowserContext, StartedSession } from '../commands/account-input';
import { SessionView } from '../views';
import { RESET_REQUIRED_HASH } from '../recovery/recovery.projection';
import { AccountWrites } from './account-writes';
import { isToken, newToken, tokenHash } from './secrets';

const USER_AGENT_MAX = 300;

/**
 * Starts a session for a person (after a verified sign-up or a password): a new random token
 * (only its SHA-256 is recorded), the browser's device token kept or made (the "browser that
 * signed in before" rule), SessionStarted on the person's stream, its first use noted on the
 * injected clock — the same reading the session starts at (its `created_at`, `expires_at`). The
 * tokens go back to the controller, which puts them in cookies.
 *
 * A person whose e-mail change was undone starts no session by any method until a password
 * reset (403 password_reset_required): the undo ends every session because someone else held
 * the account, and that someone may have added a passkey or answered a two-step challenge
 * asked before the undo (decision 0038, addendum of 2026-11-28). Read from the projection the
 * undo updates before it answers; StartSession itself stays uncontended (decision 0034).
 */
@Injectable()
export class SessionStarter {
  constructor(
    private readonly writes: AccountWrites,
    private readonly read: AccountsReadModel,
  ) {}

  async start(accountId: string, method: 'sign_up' | 'password' | 'passkey', browser: BrowserContext, meta: WriteMeta): Promise<StartedSession<SessionView>> {
    if ((await this.read.byId(accountId))?.password_hash === RESET_REQUIRED_HASH) {
      throw new DomainRefusal('password_reset_required', 'This account was locked when an e-mail change was undone: set a new password through a reset link first.');
    }
    const sessionId = newId('ses');
    const sessionToken = newToken();
    const deviceToken = isToken(browser.deviceToken) ? browser.deviceToken : newToken();
    const now = this.writes.now();
    await this.writes.account(accountId, {
      type: 'StartSession',
      session: {
        session_id: sessionId,
        token_hash: tokenHash(sessionToken),
        device_hash: tokenHash(deviceToken),
        method,
        user_agent: browser.userAgent ? browser.userAgent.slice(0, USER_AGENT_MAX) : null,
        expires_at: new Date(now.getTime() + SESSION_ABSOLUTE_MS).toISOString(),
      },
    }, meta, false, now); // one clock reading: created_at (the event's occurredAt), expires_at and the first use
    await this.read.touch(sessionId, now);
    const view = await this.read.session(accountId, sessionId, sessionId, now);
    if (view === null) throw new Error(`session ${sessionId}: not in the read model after its write`);
    return { answer: view, sessionToken, deviceToken };
  }
}
