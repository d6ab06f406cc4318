import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

/** POST /businesses/{id}/alert-email/confirm: the 6 digits e-mailed, spaces ignored (a wrong shape is 400 invalid_code). */
export class ConfirmAlertEmailDto {
  @MaxLength(64, { message: 'code is at most 64 characters' })
  @IsString({ message: 'code is required' })
  @ApiProperty({ description: 'The 6-digit code e-mailed to the new alert address; spaces are ignored.', example: '123 456', maxLength: 64 })
  code!: string;
}
