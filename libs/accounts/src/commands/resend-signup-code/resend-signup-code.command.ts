import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { SignupView } from '../../views';
import type { ResendSignupCodeRequest } from './resend-signup-code.dto';

/** POST /accounts/verify/resend: a new code e-mailed (the last one stops working). */
export class ResendSignupCodeCommand extends Command<SignupView> {
  constructor(
    readonly input: ResendSignupCodeRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
