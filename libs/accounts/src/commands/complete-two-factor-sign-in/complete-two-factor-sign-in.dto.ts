import { ApiProperty } from '@nestjs/swagger';
import { RequiredString } from '../account-input';
import { CHALLENGE_ID_MAX, OptionalCode, SECOND_FACTOR_MAX } from '../../two-factor/two-factor-input';

/** POST /sessions/two-factor (decision 0036): answer the challenge POST /sessions gave with a code or a recovery code. */
export class CompleteTwoFactorSignInRequest {
  @RequiredString('challenge_id', CHALLENGE_ID_MAX)
  @ApiProperty({ description: 'The `id` of the two_factor_challenge POST /sessions answered (tfc_…).', maxLength: CHALLENGE_ID_MAX })
  challenge_id!: string;

  @OptionalCode('code')
  @ApiProperty({ required: false, description: 'A 6-digit code from the authenticator app (spaces ignored). Give this or `recovery_code`.', maxLength: SECOND_FACTOR_MAX })
  code?: string;

  @OptionalCode('recovery_code')
  @ApiProperty({ required: false, description: 'An unused recovery code (XXXX-XXXX-XXXX-XXXX; case, spaces and dashes ignored). Each works once.', maxLength: SECOND_FACTOR_MAX })
  recovery_code?: string;
}
