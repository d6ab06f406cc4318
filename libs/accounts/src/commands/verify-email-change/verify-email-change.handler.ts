import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { newLinkToken } from '@lib/http';
import { AccountsReadModel } from '../../accounts.read-model';
import { AccountWrites } from '../../app/account-writes';
import { ACCOUNT_PASSWORDS, AccountPasswords } from '../../ports';
import { RECOVERY_LINK_BASE, RECOVERY_MAIL, RecoveryMail, undoLink } from '../../recovery/recovery-mail';
import { RecoveryWrites } from '../../recovery/recovery-writes';
import { AccountView } from '../../views';
import { VerifyEmailChangeCommand } from './verify-email-change.command';

const invalidCode = () => new DomainRefusal('invalid_code', 'This code is wrong.', 'code');

/**
 * Confirms an e-mail change with its code (POST /me/email/verify; decision 0038). The decider's
 * refusals first (400 verification_expired, 429 too_many_attempts, 400 code_expired); a
 * malformed code is 400 invalid_code and costs nothing; a wrong one is recorded, then 400
 * invalid_code. A right one: the new address still free (409 email_taken), the undo link
 * e-mailed to the old address (outside its e-mail budget: the one notice of a takeover; SMTP
 * down → 503 email_unavailable, nothing changed), then the new address claimed, the change
 * recorded, the old address released.
 */
@CommandHandler(VerifyEmailChangeCommand)
export class VerifyEmailChangeHandler implements ICommandHandler<VerifyEmailChangeCommand, AccountView> {
  constructor(
    private readonly read: AccountsReadModel,
    private readonly accounts: AccountWrites,
    private readonly writes: RecoveryWrites,
    @Inject(ACCOUNT_PASSWORDS) private readonly passwords: AccountPasswords,
    @Inject(RECOVERY_MAIL) private readonly mail: RecoveryMail,
    @Inject(RECOVERY_LINK_BASE) private readonly linkBase: string,
  ) {}

  async execute({ accountId, input, meta }: VerifyEmailChangeCommand): Promise<AccountView> {
    const state = await this.writes.state(accountId);
    const now = this.writes.now();
    this.writes.probe(state, { type: 'TryEmailChangeCode', checkedHash: null, codeMatches: false, undoTokenHash: '' }, now);
    const change = state.pendingChange!;
    const oldEmail = state.account!.email;
    const code = input.code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(code)) throw invalidCode();
    if (!(await this.passwords.verify(change.codeHash, code))) {
      await this.writes.run(accountId, { type: 'TryEmailChangeCode', checkedHash: change.codeHash, codeMatches: false, undoTokenHash: '' }, meta, now);
      throw invalidCode();
    }
    const holder = (await this.accounts.emailState(change.newEmail)).holder;
    if (holder !== null && holder !== accountId) throw new DomainRefusal('email_taken', 'Another account took this e-mail address meanwhile.', 'email');
    const undo = newLinkToken(accountId);
    await this.mail.sendEmailChangeUndo(oldEmail, change.newEmail, undoLink(this.linkBase, undo.token)); // MailUnavailableError: 503 email_unavailable
    await this.accounts.email(change.newEmail, { type: 'ClaimEmailForChange', email: change.newEmail, accountId }, meta);
    await this.writes.run(accountId, { type: 'TryEmailChangeCode', checkedHash: change.codeHash, codeMatches: true, undoTokenHash: undo.hash }, meta, now);
    await this.accounts.email(oldEmail, { type: 'ReleaseAccountEmail', email: oldEmail, accountId }, meta);
    return (await this.read.view(accountId))!;
  }
}
