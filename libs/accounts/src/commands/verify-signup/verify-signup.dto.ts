import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PASSWORD_MAX, Password, RequiredString } from '../account-input';

/** POST /accounts/verify (decision 0034). */
export class VerifySignupRequest {
  @RequiredString('signup_id', 100)
  @ApiProperty({ description: 'The sign-up’s id (sgn_…), from POST /accounts.' })
  signup_id!: string;

  @RequiredString('code', 20)
  @ApiProperty({ description: 'The 6-digit code e-mailed (spaces are ignored).', example: '123456' })
  code!: string;

  @Password('password', false)
  @ApiPropertyOptional({ description: 'The password chosen at sign-up: required when finishing in a browser other than the one that signed up (400 password_required).', maxLength: PASSWORD_MAX })
  password?: string;
}
