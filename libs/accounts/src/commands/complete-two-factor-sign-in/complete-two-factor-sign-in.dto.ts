import { ApiProperty } from '@nestjs/swagger';
import { RequiredString } from '../account-input';
import { CHALLENGE_ID_MAX, OptionalCode } from '../../two-factor/two-factor-input';

/** POST /sessions/two-factor (decision 0036): answer the challenge POST /sessions gave with a code or a recovery code. */
export class CompleteTwoFactorSignInRequest {
  @RequiredString('challenge_id', CHALLENGE_ID_MAX)
  @ApiProperty({ description: 'The `id` of the two_factor_challenge POST /sessions answered (tfc_…).', maxLength: CHALLENGE_ID_MAX })
  challenge_id!: string;

  @OptionalCode('code', 'A 6-digit code from the authenticator app (spaces ignored). Give this or `recovery_code`.')
  code?: string;

  @OptionalCode('recovery_code', 'An unused recovery code (XXXX-XXXX-XXXX-XXXX; case, spaces and dashes ignored). Each works once.')
  recovery_code?: string;
}
