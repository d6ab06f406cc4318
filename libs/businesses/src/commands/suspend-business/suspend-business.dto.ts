import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { SUSPENSION_REASON_MAX } from '../../business.decider';
import { Trimmed } from '../text';

/** The input of "suspend a business" (operator CLI, admin endpoint): a reason, for the record. */
export class SuspendBusinessDto {
  @Trimmed()
  @IsString({ message: 'reason is required' })
  @IsNotEmpty({ message: 'reason is required' })
  @MaxLength(SUSPENSION_REASON_MAX, { message: `reason is at most ${SUSPENSION_REASON_MAX} characters` })
  reason!: string;
}
