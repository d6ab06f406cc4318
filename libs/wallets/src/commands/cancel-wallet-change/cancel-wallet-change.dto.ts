import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

/** The longest cancel token (`biz_…` up to 68 characters, `.`, 43 characters) with room to spare. */
export const WALLET_CHANGE_TOKEN_MAX = 200;

/** POST /wallet-changes/cancel (decision 0041): the e-mailed link's token; a malformed one is 400 invalid_token, like a used one. */
export class CancelWalletChangeRequest {
  @MaxLength(WALLET_CHANGE_TOKEN_MAX, { message: `token is at most ${WALLET_CHANGE_TOKEN_MAX} characters` })
  @IsString({ message: 'token is required' })
  @ApiProperty({ description: 'The token of the e-mailed link (after `#token=`).', maxLength: WALLET_CHANGE_TOKEN_MAX })
  token!: string;
}
