import type { EmailChangeView } from '../../recovery/recovery.views';
import { PasswordOrStepUpCommand } from '../password-or-step-up.command';
import type { StartEmailChangeRequest } from './start-email-change.dto';

/** POST /me/email: a change of the person's address started, its code e-mailed to the new one. */
export class StartEmailChangeCommand extends PasswordOrStepUpCommand<StartEmailChangeRequest, EmailChangeView> {}
