import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { AccountWrites } from '../../app/account-writes';
import { RecoveryWrites, readRecoveryToken } from '../../recovery/recovery-writes';
import { EmailChangeUndoView } from '../../recovery/recovery.views';
import { TOTP_VAULT, TotpVault } from '../../two-factor/totp-vault';
import { UndoEmailChangeCommand } from './undo-email-change.command';

const invalidUndo = () => new DomainRefusal('invalid_token', 'This undo link was used, replaced or has expired.', 'token');

/**
 * Undoes an e-mail change (POST /email-changes/undo; decision 0038; public: the link is the
 * proof). The link must be usable (400 invalid_token); the old address is claimed back (409
 * email_taken when another account took it since), the change undone — every session ended, the
 * password stops working (403 password_reset_required at sign-in) and new passwords are held a
 * day (409 reset_on_hold), every passkey removed and two-step sign-in turned off (addendum of
 * 2026-11-28: whoever held the account may have added them; the owner adds them again after the
 * reset) — and the address the account had released. The person's TOTP secrets are deleted from
 * the vault, as disabling does.
 */
@CommandHandler(UndoEmailChangeCommand)
export class UndoEmailChangeHandler implements ICommandHandler<UndoEmailChangeCommand, EmailChangeUndoView> {
  constructor(
    private readonly accounts: AccountWrites,
    private readonly writes: RecoveryWrites,
    @Inject(TOTP_VAULT) private readonly vault: TotpVault,
  ) {}

  async execute({ token, meta }: UndoEmailChangeCommand): Promise<EmailChangeUndoView> {
    const named = readRecoveryToken(token);
    if (named === null) throw invalidUndo();
    const state = await this.writes.state(named.accountId);
    const now = this.writes.now();
    this.writes.probe(state, { type: 'UndoEmailChange', tokenHash: named.hash }, now);
    const undo = state.undos.find((u) => u.tokenHash === named.hash)!;
    const current = state.account!.email;
    const personMeta = { ...meta, actor: { kind: 'person' as const, id: named.accountId, name: null } };
    await this.accounts.email(undo.oldEmail, { type: 'ClaimEmailForChange', email: undo.oldEmail, accountId: named.accountId }, personMeta);
    const run = await this.writes.run(named.accountId, { type: 'UndoEmailChange', tokenHash: named.hash }, personMeta, now);
    await this.vault.forget(named.accountId, null);
    await this.accounts.email(current, { type: 'ReleaseAccountEmail', email: current, accountId: named.accountId }, personMeta);
    const removed = run.state.undoRemoved ?? { passkeys: 0, twoFactor: false };
    return { kind: 'email_change_undo', email: undo.oldEmail, reset_hold_until: run.state.holdUntil!, passkeys_removed: removed.passkeys, two_factor_turned_off: removed.twoFactor };
  }
}
