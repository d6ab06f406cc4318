import { ApiProperty } from '@nestjs/swagger';
import { RequiredString } from './account-input';

/** The longest token a reset or undo link carries (`acc_…` + `.` + 43 characters) with room to spare. */
export const RECOVERY_TOKEN_MAX = 200;

/** A reset or undo link's token (decision 0038): a malformed one is 400 invalid_token, like a used one. */
export class TokenRequest {
  @RequiredString('token', RECOVERY_TOKEN_MAX)
  @ApiProperty({ description: 'The token of the e-mailed link (after `#token=`).', maxLength: RECOVERY_TOKEN_MAX })
  token!: string;
}
