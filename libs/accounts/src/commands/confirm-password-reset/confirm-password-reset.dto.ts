import { ApiProperty } from '@nestjs/swagger';
import { NewPassword, PASSWORD_MAX } from '../account-input';
import { TokenRequest } from '../recovery-input';

/** POST /password-resets/confirm (decision 0038). */
export class ConfirmPasswordResetRequest extends TokenRequest {
  @NewPassword('new_password', true)
  @ApiProperty({ description: 'The new password (400 weak_password says which rule it breaks).', maxLength: PASSWORD_MAX })
  new_password!: string;
}
