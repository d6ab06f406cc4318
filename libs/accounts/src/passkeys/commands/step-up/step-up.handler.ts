import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { CurrentPassword } from '../../../app/current-password';
import { ACCOUNTS_CLOCK, AccountsClock } from '../../../ports';
import { AssertionCheck } from '../../app/assertion';
import { PasskeyWrites } from '../../app/passkey-writes';
import { STEP_UP_VALIDITY_MS } from '../../passkey.decider';
import { StepUpCommand, StepUpView } from './step-up.command';

/**
 * Steps a session up (spec §5.6; decision 0037) with exactly one proof: `current_password`
 * (the session's own wrong-password ladder first, as POST /me/password: 429 too_many_attempts;
 * wrong → 400 invalid_credentials, counted; a person without a password answers the same), or a
 * passkey `credential` answering this session's step-up options (another person's passkey → 400
 * passkey_unknown). Then SessionSteppedUp on the person's stream: 15 minutes of sensitive changes.
 */
@CommandHandler(StepUpCommand)
export class StepUpHandler implements ICommandHandler<StepUpCommand, StepUpView> {
  constructor(
    private readonly currentPassword: CurrentPassword,
    private readonly writes: PasskeyWrites,
    private readonly assertions: AssertionCheck,
    @Inject(ACCOUNTS_CLOCK) private readonly clock: AccountsClock,
  ) {}

  async execute({ accountId, sessionId, input, rp, meta }: StepUpCommand): Promise<StepUpView> {
    const byPassword = input.current_password !== undefined;
    if (byPassword === (input.credential !== undefined)) throw new DomainRefusal('invalid_request', 'Give either current_password or a passkey credential.', byPassword ? 'credential' : 'current_password');
    let passkeyId: string | null = null;
    if (byPassword) {
      await this.currentPassword.check(accountId, sessionId, input.current_password!);
    } else {
      passkeyId = (await this.assertions.verify({ purpose: 'step_up', sessionId }, input.credential!, rp, meta, accountId)).id;
    }
    const at = this.clock();
    await this.writes.run(accountId, { type: 'StepUp', sessionId, method: byPassword ? 'password' : 'passkey', passkeyId, at: at.toISOString() }, meta);
    return { kind: 'step_up', method: byPassword ? 'password' : 'passkey', expires_at: new Date(at.getTime() + STEP_UP_VALIDITY_MS).toISOString() };
  }
}
