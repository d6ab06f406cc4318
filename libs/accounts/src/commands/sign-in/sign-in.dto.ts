import { ApiProperty } from '@nestjs/swagger';
import { ACCOUNT_EMAIL_MAX, PASSWORD_MAX, Password, SignInEmail } from '../account-input';

/** POST /sessions (decision 0034): sign in with an e-mail address and a password. */
export class SignInRequest {
  @SignInEmail()
  @ApiProperty({ description: 'The account’s e-mail address (surrounding whitespace is trimmed; empty or blank is 400 invalid_request).', maxLength: ACCOUNT_EMAIL_MAX })
  email!: string;

  @Password('password', true)
  @ApiProperty({ description: 'The account’s password.', maxLength: PASSWORD_MAX })
  password!: string;
}
