import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { newId, newLinkToken } from '@lib/http';
import { AccountsReadModel } from '../../accounts.read-model';
import { MailUnavailableError } from '@lib/mail';
import { EMAIL_BUDGET, EmailBudget } from '../../ports';
import { mayRequestReset } from '../../recovery/recovery.decider';
import { RECOVERY_LINK_BASE, RECOVERY_MAIL, RecoveryMail, resetLink } from '../../recovery/recovery-mail';
import { RecoveryWrites } from '../../recovery/recovery-writes';
import { PasswordResetRequestView } from '../../recovery/recovery.views';
import { RequestPasswordResetCommand } from './request-password-reset.command';

/**
 * Asks for a password reset (POST /password-resets; decision 0038). The answer is the same
 * whatever happens — no account, 3 links already sent this hour, the address's e-mail budget
 * spent, SMTP down (logged, without the address) — so it tells nothing about the address.
 * Otherwise a link with a fresh token (an hour, once; it replaces the last one) is e-mailed to
 * the account's address, and PasswordResetRequested records the token's hash.
 */
@CommandHandler(RequestPasswordResetCommand)
export class RequestPasswordResetHandler implements ICommandHandler<RequestPasswordResetCommand, PasswordResetRequestView> {
  private readonly logger = new Logger('PasswordResets');

  constructor(
    private readonly read: AccountsReadModel,
    private readonly writes: RecoveryWrites,
    @Inject(RECOVERY_MAIL) private readonly mail: RecoveryMail,
    @Inject(RECOVERY_LINK_BASE) private readonly linkBase: string,
    @Inject(EMAIL_BUDGET) private readonly budget: EmailBudget,
  ) {}

  async execute({ input, meta }: RequestPasswordResetCommand): Promise<PasswordResetRequestView> {
    const answer: PasswordResetRequestView = { kind: 'password_reset_request', email: input.email };
    const account = await this.read.byEmail(input.email);
    if (account === null) return answer;
    const now = this.writes.now();
    const state = await this.writes.state(account.id);
    if (!mayRequestReset(state, now)) return answer;
    if (!(await this.budget.take(account.email)).allowed) return answer;
    const { token, hash } = newLinkToken(account.id);
    try {
      await this.mail.sendPasswordReset(account.email, resetLink(this.linkBase, token), state.undoRemoved);
    } catch (error) {
      if (!(error instanceof MailUnavailableError)) throw error;
      this.logger.warn('a password reset link was not sent: the service cannot send e-mail');
      return answer;
    }
    await this.writes.run(account.id, { type: 'RequestPasswordReset', resetId: newId('pwr'), tokenHash: hash }, { ...meta, actor: { kind: 'person', id: account.id, name: null } }, now);
    return answer;
  }
}
