import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '@lib/http';
import type { SignupCodeSentData } from '../events';
import { ACCOUNT_MAIL, ACCOUNT_PASSWORDS, AccountMail, AccountPasswords, EMAIL_BUDGET, EmailBudget } from '../ports';
import { CODE_LIFETIME_MS } from '../signup.decider';
import { retryLater } from './account-writes';

/**
 * Sends an e-mailed code (a sign-up's, an e-mail change's) within the address's e-mail budget
 * (spec §8: 5 an hour, 20 a day) and answers what the stream records of it. Past the budget, a
 * resend (`strict`) is 429 too_many_emails; other requests answer as usual but send nothing. SMTP
 * down is 503 email_unavailable, and nothing is recorded. The code itself is never logged nor
 * stored.
 */
@Injectable()
export class CodeMailer {
  constructor(
    @Inject(ACCOUNT_MAIL) private readonly mail: AccountMail,
    @Inject(EMAIL_BUDGET) private readonly budget: EmailBudget,
    @Inject(ACCOUNT_PASSWORDS) private readonly passwords: AccountPasswords,
  ) {}

  /** A sign-up's code: SignupCodeSent's data (sent now, ends CODE_LIFETIME_MS later). */
  async send(email: string, code: string, now: Date, strict: boolean): Promise<SignupCodeSentData> {
    const sent = await this.deliver(email, code, strict, (to, mailed) => this.mail.sendSignupCode(to, mailed));
    return { code_hash: sent.codeHash, sent_at: now.toISOString(), expires_at: new Date(now.getTime() + CODE_LIFETIME_MS).toISOString(), delivered: sent.delivered };
  }

  /**
   * An e-mail that follows a recorded fact (a resent sign-up code, an e-mail change's code, a
   * reset link): the address's budget taken now (past it: 429 too_many_emails when `strict`,
   * else `write` is told `withinBudget: false` and nothing is sent), then `write` appends the
   * fact and passes `afterAppend` to the CommandRunner, which calls it only once the append
   * succeeded — there `send` e-mails it. So of concurrent requests only the one whose append won
   * sends anything, and a request that ends without its append (refused after a lost race, or
   * nothing to record) or whose e-mail SMTP refused gives the budget back: a refusal claims
   * nothing (decisions 0034 and 0038, addenda of 2026-11-29). `send`'s MailUnavailableError
   * comes out of `write` (the fact stays recorded).
   */
  async afterAppend<T>(email: string, strict: boolean, send: () => Promise<void>, write: (withinBudget: boolean, afterAppend: () => Promise<void>) => Promise<T>): Promise<T> {
    const taken = await this.budget.take(email);
    if (!taken.allowed && strict) throw retryLater('too_many_emails', 'Too many e-mails to this address: wait before asking again.', taken.retryAfterSec);
    let sent = false;
    try {
      return await write(taken.allowed, async () => {
        if (!taken.allowed) return;
        await send();
        sent = true;
      });
    } finally {
      if (taken.allowed && !sent) await this.budget.giveBack(email);
    }
  }

  /**
   * A resend refused for another reason (a minute after the last code): the refusal with its
   * Retry-After made the longer of its own wait and the address's e-mail budget's, so the
   * header says when a send would actually be allowed (decision 0034, addendum of 2026-11-30,
   * audit lim F2). Anything else comes back as it was.
   */
  async withBudgetWait(email: string, error: unknown): Promise<unknown> {
    if (!(error instanceof ApiError) || error.code !== 'too_many_emails') return error;
    const own = Number(error.headers?.['retry-after'] ?? NaN);
    if (!Number.isFinite(own)) return error; // no Retry-After (5 codes per flow: start again): no wait would help
    const budget = await this.budget.waitSec(email);
    if (budget <= own) return error;
    return retryLater('too_many_emails', 'Too many e-mails to this address: wait before asking again.', budget);
  }

  /** A code's argon2id hash, as a stream records it (the code itself never). */
  hash(code: string): Promise<string> {
    return this.passwords.hash(code);
  }

  /**
   * Any e-mailed code: the budget taken, then `mail` sends it (when within the budget). Answers
   * what a stream records of it: its argon2id hash, and whether an e-mail went out.
   */
  async deliver(email: string, code: string, strict: boolean, mail: (email: string, code: string) => Promise<void>): Promise<{ codeHash: string; delivered: boolean }> {
    const taken = await this.budget.take(email);
    if (!taken.allowed && strict) throw retryLater('too_many_emails', 'Too many e-mails to this address: wait before asking again.', taken.retryAfterSec);
    if (taken.allowed) await mail(email, code); // 503 email_unavailable when it cannot
    return { codeHash: await this.passwords.hash(code), delivered: taken.allowed };
  }
}
