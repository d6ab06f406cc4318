import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { TwoFactorEnabledView } from '../../two-factor/views';
import type { EnableTwoFactorRequest } from './enable-two-factor.dto';

/** POST /me/two-factor: the code of this session's setup and the current password; answers the recovery codes once. */
export class EnableTwoFactorCommand extends Command<TwoFactorEnabledView> {
  constructor(
    readonly accountId: string,
    readonly sessionId: string,
    readonly input: EnableTwoFactorRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
