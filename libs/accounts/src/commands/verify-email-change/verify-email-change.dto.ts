import { ApiProperty } from '@nestjs/swagger';
import { RequiredString } from '../account-input';

/** POST /me/email/verify (decision 0038). */
export class VerifyEmailChangeRequest {
  @RequiredString('code', 20)
  @ApiProperty({ description: 'The 6-digit code e-mailed to the new address (spaces ignored).', maxLength: 20 })
  code!: string;
}
