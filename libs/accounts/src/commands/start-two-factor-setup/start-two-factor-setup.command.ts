import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { TwoFactorSetupView } from '../../two-factor/views';

/** POST /me/two-factor/setup: a new TOTP secret for this session to enable within 10 minutes. */
export class StartTwoFactorSetupCommand extends Command<TwoFactorSetupView> {
  constructor(
    readonly accountId: string,
    readonly email: string,
    readonly sessionId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
