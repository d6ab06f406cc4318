import { ApiProperty } from '@nestjs/swagger';
import { ACCOUNT_EMAIL_MAX, PASSWORD_MAX, Password, RequiredString } from '../account-input';

/** POST /sessions (decision 0034): sign in with an e-mail address and a password. */
export class SignInRequest {
  @RequiredString('email', ACCOUNT_EMAIL_MAX)
  @ApiProperty({ description: 'The account’s e-mail address.', maxLength: ACCOUNT_EMAIL_MAX })
  email!: string;

  @Password('password', true)
  @ApiProperty({ description: 'The account’s password.', maxLength: PASSWORD_MAX })
  password!: string;
}
