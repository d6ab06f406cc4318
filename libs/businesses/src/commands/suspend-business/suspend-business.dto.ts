import { SUSPENSION_REASON_MAX } from '../../business.decider';
import { RequiredText } from '../text';

/** The input of "suspend a business" (operator CLI, admin endpoint): a reason, for the record. */
export class SuspendBusinessDto {
  @RequiredText('reason', SUSPENSION_REASON_MAX)
  reason!: string;
}
