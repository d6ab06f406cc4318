import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { TwoFactorView } from '../../two-factor/views';
import type { DisableTwoFactorRequest } from './disable-two-factor.dto';

/** POST /me/two-factor/disable: two-step sign-in off, with the current password and a code or recovery code. */
export class DisableTwoFactorCommand extends Command<TwoFactorView> {
  constructor(
    readonly accountId: string,
    readonly sessionId: string,
    readonly input: DisableTwoFactorRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
