import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { DomainRefusal } from '@lib/domain';
import { WebauthnChallenges } from '../../challenges';
import { PasskeysReadModel } from '../../passkeys.read-model';
import { authenticationOptions } from '../../webauthn';
import { StartStepUpCommand } from './start-step-up.command';

/** A step-up challenge for this session (decision 0037): a person without passkeys is 409 no_passkeys. */
@CommandHandler(StartStepUpCommand)
export class StartStepUpHandler implements ICommandHandler<StartStepUpCommand, PublicKeyCredentialRequestOptionsJSON> {
  constructor(
    private readonly read: PasskeysReadModel,
    private readonly challenges: WebauthnChallenges,
  ) {}

  async execute({ accountId, sessionId, rp }: StartStepUpCommand): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const passkeys = await this.read.stored(accountId);
    if (passkeys.length === 0) throw new DomainRefusal('no_passkeys', 'This account has no passkeys: step up with the password.');
    const challenge = await this.challenges.issue({ purpose: 'step_up', sessionId }, accountId);
    return authenticationOptions(rp, challenge, passkeys);
  }
}
