import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { newId } from '@lib/http';
import { emailKey } from '../../accounts.projector';
import { AccountWrites } from '../../app/account-writes';
import { CodeMailer } from '../../app/code-mailer';
import { CurrentPassword } from '../../app/current-password';
import { newCode } from '../../app/secrets';
import { EMAIL_CHANGE_CODE_LIFETIME_MS, EMAIL_CHANGE_LIFETIME_MS } from '../../recovery/recovery.decider';
import { EmailChangeStartedData } from '../../recovery/recovery.events';
import { RECOVERY_MAIL, RecoveryMail } from '../../recovery/recovery-mail';
import { RecoveryWrites } from '../../recovery/recovery-writes';
import type { RecoveryState } from '../../recovery/recovery.decider';
import { EmailChangeView } from '../../recovery/recovery.views';
import { StartEmailChangeCommand } from './start-email-change.command';

/**
 * Starts changing the person's address (POST /me/email; decision 0038), in this order: the
 * session's wrong-current-password ladder (429 too_many_attempts), the current password (400
 * invalid_credentials, counted), the new address free (409 email_taken; the person's own address
 * is 400 invalid_request), at most 3 changes started an hour and a new code to the address
 * already pending a minute after the last (429 too_many_emails, the longer wait; addendum of
 * 2026-11-30), then a
 * 6-digit code for the new address within its e-mail budget (past it: answered as usual,
 * nothing sent): EmailChangeStarted appended, and only once that append succeeded (the
 * CommandRunner's afterAppend) the code e-mailed — a request whose append never happened sends
 * nothing and gives the budget back. SMTP down: the change withdrawn (EmailChangeWithdrawn: the
 * one pending before it back, the 3 an hour not spent), the budget given back, 503
 * email_unavailable (addendum of 2026-11-29, decision 0038). The change replaces any pending one.
 */
@CommandHandler(StartEmailChangeCommand)
export class StartEmailChangeHandler implements ICommandHandler<StartEmailChangeCommand, EmailChangeView> {
  constructor(
    private readonly currentPassword: CurrentPassword,
    private readonly accounts: AccountWrites,
    private readonly writes: RecoveryWrites,
    private readonly codes: CodeMailer,
    @Inject(RECOVERY_MAIL) private readonly mail: RecoveryMail,
  ) {}

  async execute(command: StartEmailChangeCommand): Promise<EmailChangeView> {
    const account = await this.currentPassword.checkOrStepUp(command);
    const { accountId, input, meta } = command;
    if (emailKey(input.email) === emailKey(account.email)) throw new DomainRefusal('invalid_request', 'This is already the account’s address.', 'email');
    const holder = (await this.accounts.emailState(input.email)).holder;
    if (holder !== null && holder !== accountId) throw new DomainRefusal('email_taken', 'Another account uses this e-mail address.', 'email');

    const now = this.writes.now();
    const state = await this.writes.state(accountId);
    const change = (codeHash: string, delivered: boolean): EmailChangeStartedData => ({
      change_id: newId('emc'),
      new_email: input.email,
      code_hash: codeHash,
      sent_at: now.toISOString(),
      code_expires_at: new Date(now.getTime() + EMAIL_CHANGE_CODE_LIFETIME_MS).toISOString(),
      expires_at: new Date(now.getTime() + EMAIL_CHANGE_LIFETIME_MS).toISOString(),
      delivered,
    });
    this.writes.probe(state, { type: 'StartEmailChange', change: change('', false) }, now); // 3 an hour, before anything is spent
    const code = newCode();
    const codeHash = await this.codes.hash(code);
    // the budget now (past it: answered as usual, delivered false, nothing sent); the e-mail only once EmailChangeStarted
    // is appended, so a request that ends without its append sends nothing and gives the budget back (addendum of 2026-11-29)
    let before: RecoveryState = state;
    let recorded: EmailChangeStartedData | null = null;
    const send = async () => {
      try {
        await this.mail.sendEmailChangeCode(input.email, code);
      } catch (error) {
        // undelivered (MailUnavailableError: 503 email_unavailable): the change withdrawn, the one pending before it back
        await this.writes.run(accountId, { type: 'WithdrawEmailChange', changeId: recorded!.change_id, before }, meta);
        throw error;
      }
    };
    const started = await this.codes.afterAppend(input.email, false, send, async (withinBudget, afterAppend) => {
      const data = change(codeHash, withinBudget);
      recorded = data;
      await this.writes.run(accountId, { type: 'StartEmailChange', change: data }, meta, now, { beforeAppend: async (_events, decidedOn) => void (before = decidedOn), afterAppend });
      return data;
    });
    return { kind: 'email_change', id: started.change_id, email: started.new_email, expires_at: started.expires_at, code_expires_at: started.code_expires_at };
  }
}
