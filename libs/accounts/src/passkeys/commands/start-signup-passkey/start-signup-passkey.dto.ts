import { ApiProperty } from '@nestjs/swagger';
import { RequiredString } from '../../../commands/account-input';

/** POST /accounts/passkey-options (decision 0037). */
export class SignupPasskeyOptionsRequest {
  @RequiredString('signup_id', 100)
  @ApiProperty({ description: 'The passkey sign-up’s id (sgn_…), from POST /accounts without a password.' })
  signup_id!: string;
}
