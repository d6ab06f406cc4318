import { Inject, Injectable } from '@nestjs/common';
import { AccountsReadModel, LiveSession } from '../accounts.read-model';
import type { AccountRole } from '../events';
import { ACCOUNTS_CLOCK, AccountsClock } from '../ports';
import { isToken, tokenHash } from './secrets';

/**
 * Authentication by session cookie (not a use case; the API's AuthGuard asks it): the live
 * session a token names (not ended, not idle 12 hours, not older than 14 days, on the injected
 * clock), and the person's role for a business. No cache: a sign-out or revocation holds at
 * once in every process.
 */
@Injectable()
export class SessionAuthenticator {
  constructor(
    private readonly read: AccountsReadModel,
    @Inject(ACCOUNTS_CLOCK) private readonly clock: AccountsClock,
  ) {}

  async session(token: string): Promise<LiveSession | null> {
    if (!isToken(token)) return null;
    return this.read.live(tokenHash(token), this.clock());
  }

  roleFor(accountId: string, businessId: string): Promise<AccountRole | null> {
    return this.read.roleFor(accountId, businessId);
  }
}
