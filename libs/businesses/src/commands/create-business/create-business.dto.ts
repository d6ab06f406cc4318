import { IsBoolean } from 'class-validator';
import { OptionalText, RequiredText } from '../text';
import { PlainText } from '@lib/http';

export const NAME_MAX = 200;
export const WEBSITE_MAX = 2048;
export const EMAIL_MAX = 254;

/**
 * The input of "create a business" (operator CLI, admin endpoint): its shape, in one place.
 * Texts are trimmed; an empty website or support e-mail is none.
 */
export class CreateBusinessDto {
  @PlainText('single-line')
  @RequiredText('name', NAME_MAX)
  name!: string;

  @IsBoolean({ message: 'simulated must be true or false' })
  simulated!: boolean;

  @OptionalText('website', WEBSITE_MAX)
  website?: string | null;

  @OptionalText('support_email', EMAIL_MAX)
  support_email?: string | null;

  /** Another business's referral code: that business is recorded as the referrer (decision 0035). Case is folded. */
  @OptionalText('referral_code', 64)
  referral_code?: string | null;
}
