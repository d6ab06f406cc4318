import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { AccountView } from '../../views';
import type { VerifyEmailChangeRequest } from './verify-email-change.dto';

/** POST /me/email/verify: the pending change confirmed with its code; the address moves. */
export class VerifyEmailChangeCommand extends Command<AccountView> {
  constructor(
    readonly accountId: string,
    readonly input: VerifyEmailChangeRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
