import { ApiProperty } from '@nestjs/swagger';
import { CurrentPassword, RequiredString } from '../account-input';
import { SECOND_FACTOR_MAX } from '../../two-factor/two-factor-input';

/** POST /me/two-factor (decision 0036): turn two-step sign-in on with the setup of this session. */
export class EnableTwoFactorRequest {
  @RequiredString('code', SECOND_FACTOR_MAX)
  @ApiProperty({ description: 'The 6-digit code the authenticator app shows for the setup’s secret (spaces ignored).', maxLength: SECOND_FACTOR_MAX })
  code!: string;

  @CurrentPassword()
  current_password!: string;
}
