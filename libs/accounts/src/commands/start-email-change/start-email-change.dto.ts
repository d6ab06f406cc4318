import { ApiProperty } from '@nestjs/swagger';
import { ACCOUNT_EMAIL_MAX, AccountEmail, CurrentPasswordUnlessNone } from '../account-input';

/** POST /me/email (decision 0038). */
export class StartEmailChangeRequest {
  @AccountEmail()
  @ApiProperty({ description: 'The new address: a 6-digit code is e-mailed to it (409 email_taken when another account uses it).', maxLength: ACCOUNT_EMAIL_MAX })
  email!: string;

  @CurrentPasswordUnlessNone()
  current_password?: string;
}
