import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

/**
 * POST /businesses/{id}/alert-email/confirm: the 6 digits e-mailed, spaces ignored. Every malformed
 * string is 400 invalid_code on `code` (spec §7: "code wrong or malformed"): the length rule names
 * that code (`context`, as EmailLength does for invalid_email) and stays on the DTO so the API
 * document keeps its maxLength; the shape is the decider's. A value that is not a string is 400
 * invalid_request.
 */
export class ConfirmAlertEmailDto {
  @MaxLength(64, { message: 'code is the 6 digits e-mailed to the new address (at most 64 characters)', context: { code: 'invalid_code' } })
  @IsString({ message: 'code is required' })
  @ApiProperty({ description: 'The 6-digit code e-mailed to the new alert address; spaces are ignored.', example: '123 456', maxLength: 64 })
  code!: string;
}
