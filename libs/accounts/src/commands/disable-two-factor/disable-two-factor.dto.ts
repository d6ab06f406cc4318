import { CurrentPassword } from '../account-input';
import { OptionalCode } from '../../two-factor/two-factor-input';

/** POST /me/two-factor/disable (decision 0036): the current password and a second factor (a code or a recovery code). */
export class DisableTwoFactorRequest {
  @CurrentPassword()
  current_password!: string;

  @OptionalCode('code', 'A 6-digit code from the authenticator app. Give this or `recovery_code`.')
  code?: string;

  @OptionalCode('recovery_code', 'An unused recovery code (XXXX-XXXX-XXXX-XXXX). Give this or `code`.')
  recovery_code?: string;
}
