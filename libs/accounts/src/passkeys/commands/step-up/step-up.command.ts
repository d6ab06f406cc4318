import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { StepUpRequest } from '../../passkey-input';
import type { RelyingParty } from '../../webauthn';

/** What a step-up answers: until when sensitive changes are open to the session. */
export interface StepUpView {
  kind: 'step_up';
  method: 'password' | 'passkey';
  expires_at: string;
}

/** POST /sessions/current/step-up: the session proves its person again with the password or a passkey. */
export class StepUpCommand extends Command<StepUpView> {
  constructor(
    readonly accountId: string,
    readonly sessionId: string,
    readonly input: StepUpRequest,
    readonly rp: RelyingParty,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
