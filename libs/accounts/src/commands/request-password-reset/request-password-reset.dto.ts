import { ApiProperty } from '@nestjs/swagger';
import { ACCOUNT_EMAIL_MAX, AccountEmail } from '../account-input';

/** POST /password-resets (decision 0038). */
export class RequestPasswordResetRequest {
  @AccountEmail()
  @ApiProperty({ description: 'The account’s e-mail address. The answer is the same whether or not an account uses it.', maxLength: ACCOUNT_EMAIL_MAX })
  email!: string;
}
