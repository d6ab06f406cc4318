import { ApiProperty } from '@nestjs/swagger';
import { PASSWORD_MAX, Password } from '../account-input';
import { OptionalCode, SECOND_FACTOR_MAX } from '../../two-factor/two-factor-input';

/** POST /me/two-factor/disable (decision 0036): the current password and a second factor (a code or a recovery code). */
export class DisableTwoFactorRequest {
  @Password('current_password', true)
  @ApiProperty({ description: 'The password now (400 invalid_credentials when wrong).', maxLength: PASSWORD_MAX })
  current_password!: string;

  @OptionalCode('code')
  @ApiProperty({ required: false, description: 'A 6-digit code from the authenticator app. Give this or `recovery_code`.', maxLength: SECOND_FACTOR_MAX })
  code?: string;

  @OptionalCode('recovery_code')
  @ApiProperty({ required: false, description: 'An unused recovery code (XXXX-XXXX-XXXX-XXXX). Give this or `code`.', maxLength: SECOND_FACTOR_MAX })
  recovery_code?: string;
}
