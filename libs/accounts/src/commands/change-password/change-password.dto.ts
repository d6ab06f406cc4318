import { ApiProperty } from '@nestjs/swagger';
import { CurrentPasswordUnlessNone, NewPassword, PASSWORD_MAX } from '../account-input';

/** POST /me/password (decision 0034). */
export class ChangePasswordRequest {
  @CurrentPasswordUnlessNone()
  current_password?: string;

  @NewPassword('new_password', true)
  @ApiProperty({ description: 'The new password (400 weak_password says which rule it breaks).', maxLength: PASSWORD_MAX })
  new_password!: string;
}
