import { SUSPENSION_REASON_MAX } from '../../business.decider';
import { RequiredText } from '../text';
import { PlainText } from '@lib/http';

/** The input of "suspend a business" (operator CLI, admin endpoint): a reason, for the record. */
export class SuspendBusinessDto {
  @PlainText('multi-line')
  @RequiredText('reason', SUSPENSION_REASON_MAX)
  reason!: string;
}
