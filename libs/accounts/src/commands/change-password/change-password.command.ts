import type { AccountView } from '../../views';
import { PasswordOrStepUpCommand } from '../password-or-step-up.command';
import type { ChangePasswordRequest } from './change-password.dto';

/** POST /me/password: the current password checked (or, for a person without one, the step-up), the new one set, the person's other sessions ended. */
export class ChangePasswordCommand extends PasswordOrStepUpCommand<ChangePasswordRequest, AccountView> {}
