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
import { EmailChangeView } from '../../recovery/recovery.views';
import { StartEmailChangeCommand } from './start-email-change.command';

/**
 * Starts changing the person's address (POST /me/email; decision 0038), in this order: the
 * session's wrong-current-password ladder (429 too_many_attempts), the current password (400
 * invalid_credentials, counted), the new address free (409 email_taken; the person's own address
 * is 400 invalid_request), at most 3 changes started an hour (429 too_many_emails), then a
 * 6-digit code e-mailed to the new address within its e-mail budget (past it: answered as usual,
 * nothing sent; SMTP down: 503 email_unavailable, nothing recorded). The change replaces any
 * pending one.
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
    const sent = await this.codes.deliver(input.email, newCode(), false, (to, code) => this.mail.sendEmailChangeCode(to, code)); // MailUnavailableError: 503 email_unavailable
    const started = change(sent.codeHash, sent.delivered);
    await this.writes.run(accountId, { type: 'StartEmailChange', change: started }, meta, now);
    return { kind: 'email_change', id: started.change_id, email: started.new_email, expires_at: started.expires_at, code_expires_at: started.code_expires_at };
  }
}
