import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { newId, newLinkToken } from '@lib/http';
import { AccountsReadModel } from '../../accounts.read-model';
import { MailUnavailableError } from '@lib/mail';
import { CodeMailer } from '../../app/code-mailer';
import { RecoveryState, mayRequestReset } from '../../recovery/recovery.decider';
import { RECOVERY_LINK_BASE, RECOVERY_MAIL, RecoveryMail, resetLink } from '../../recovery/recovery-mail';
import { RecoveryWrites } from '../../recovery/recovery-writes';
import { PasswordResetRequestView } from '../../recovery/recovery.views';
import { RequestPasswordResetCommand } from './request-password-reset.command';

/**
 * Asks for a password reset (POST /password-resets; decision 0038). The answer is the same
 * whatever happens — no account, 3 links already sent this hour, the address's e-mail budget
 * spent, SMTP down (logged, without the address) — so it tells nothing about the address.
 * Otherwise PasswordResetRequested records a fresh token's hash (an hour, once; it replaces the
 * last one), and only once that append succeeded (the CommandRunner's afterAppend) is the link
 * e-mailed to the account's address: a request whose decision appended nothing sends nothing
 * and gives the budget back. SMTP down after the append: the link withdrawn
 * (PasswordResetWithdrawn: the one before it works again, the 3 an hour not spent), the budget
 * given back, the same answer (addendum of 2026-11-29).
 */
@CommandHandler(RequestPasswordResetCommand)
export class RequestPasswordResetHandler implements ICommandHandler<RequestPasswordResetCommand, PasswordResetRequestView> {
  private readonly logger = new Logger('PasswordResets');

  constructor(
    private readonly read: AccountsReadModel,
    private readonly writes: RecoveryWrites,
    @Inject(RECOVERY_MAIL) private readonly mail: RecoveryMail,
    @Inject(RECOVERY_LINK_BASE) private readonly linkBase: string,
    private readonly mailer: CodeMailer,
  ) {}

  async execute({ input, meta }: RequestPasswordResetCommand): Promise<PasswordResetRequestView> {
    const answer: PasswordResetRequestView = { kind: 'password_reset_request', email: input.email };
    const account = await this.read.byEmail(input.email);
    if (account === null) return answer;
    const now = this.writes.now();
    const state = await this.writes.state(account.id);
    if (!mayRequestReset(state, now)) return answer;
    const { token, hash } = newLinkToken(account.id);
    const resetId = newId('pwr');
    const asPerson = { ...meta, actor: { kind: 'person' as const, id: account.id, name: null } };
    let before: RecoveryState = state;
    const send = async () => {
      try {
        await this.mail.sendPasswordReset(account.email, resetLink(this.linkBase, token), state.undoRemoved);
      } catch (error) {
        // undelivered: the link withdrawn, the one before it back, so nothing stays recorded (the answer is the same)
        await this.writes.run(account.id, { type: 'WithdrawPasswordReset', resetId, before }, asPerson);
        throw error;
      }
    };
    try {
      // the budget now (past it: the same answer, nothing sent); the link only once PasswordResetRequested is appended — a
      // request whose decision appended nothing (3 links this hour, after a lost race) sends nothing and gives the budget
      // back (decision 0038, addendum of 2026-11-29)
      await this.mailer.afterAppend(account.email, false, send, async (withinBudget, afterAppend) => {
        if (!withinBudget) return;
        await this.writes.run(account.id, { type: 'RequestPasswordReset', resetId, tokenHash: hash }, asPerson, now, { beforeAppend: async (_events, decidedOn) => void (before = decidedOn), afterAppend });
      });
    } catch (error) {
      if (!(error instanceof MailUnavailableError)) throw error;
      this.logger.warn('a password reset link was not sent: the service cannot send e-mail');
    }
    return answer;
  }
}
