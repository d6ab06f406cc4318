import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { Credential } from '../../passkeys/passkey-input';
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

  @Credential('registration', false)
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'A passkey sign-up only (POST /accounts without a password; decision 0037), and then required: what navigator.credentials.create() answered for the options of POST /accounts/passkey-options, as JSON (PublicKeyCredential.toJSON()). Such a sign-up is finished in the browser that started it (400 `signup_browser_required`) and takes no password.',
  })
  credential?: RegistrationResponseJSON;
}
