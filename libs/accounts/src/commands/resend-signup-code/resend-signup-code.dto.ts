import { ApiProperty } from '@nestjs/swagger';
import { RequiredString } from '../account-input';

/** POST /accounts/verify/resend (decision 0034). */
export class ResendSignupCodeRequest {
  @RequiredString('signup_id', 100)
  @ApiProperty({ description: 'The sign-up’s id (sgn_…), from POST /accounts.' })
  signup_id!: string;
}
