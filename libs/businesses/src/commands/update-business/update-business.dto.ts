import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsEmail, IsNotEmpty, IsString, IsUrl, MaxLength } from 'class-validator';
import { REFERRAL_CODE_PATTERN } from '../../referrals';
import { EMAIL_MAX, NAME_MAX, WEBSITE_MAX } from '../create-business/create-business.dto';
import { OptionalReferralCode } from '../referral-code-input';
import { OptionalText, Trimmed } from '../text';
import { ChangeBody, Omittable, PlainText } from '@lib/http';

/**
 * PATCH /businesses/{id} (decision 0035): send only what changes. Texts are trimmed; blank
 * website or support e-mail is null. A new `alert_email` is not used until confirmed: it becomes
 * `pending_alert_email` and a 6-digit code is e-mailed to it (POST /businesses/{id}/alert-email/confirm).
 */
@ChangeBody()
export class UpdateBusinessDto {
  @PlainText('single-line')
  @MaxLength(NAME_MAX, { message: `name is at most ${NAME_MAX} characters` })
  @IsNotEmpty({ message: 'name cannot be blank' })
  @IsString({ message: 'name must be a string' })
  @Omittable()
  @Trimmed()
  @ApiPropertyOptional({ description: 'The business name (shown to customers on checkout pages and receipts).', maxLength: NAME_MAX })
  name?: string;

  @IsUrl({ protocols: ['http', 'https'], require_protocol: true }, { message: 'website must be an http(s) address' })
  @OptionalText('website', WEBSITE_MAX)
  @ApiPropertyOptional({ description: 'The business website (the receipt links back to it); null or blank removes it.', nullable: true, maxLength: WEBSITE_MAX })
  website?: string | null;

  @IsEmail({}, { message: 'support_email must be an e-mail address' })
  @OptionalText('support_email', EMAIL_MAX)
  @ApiPropertyOptional({ description: 'Where customers write for help; null or blank removes it.', nullable: true, maxLength: EMAIL_MAX })
  support_email?: string | null;

  @IsBoolean({ message: 'email_alerts must be true or false' })
  @Omittable()
  @ApiPropertyOptional({ description: 'E-mail alerts (such as a payment needing review) to `alert_email`.' })
  email_alerts?: boolean;

  @IsBoolean({ message: 'product_updates must be true or false' })
  @Omittable()
  @ApiPropertyOptional({ description: 'News about the service by e-mail.' })
  product_updates?: boolean;

  @IsEmail({}, { message: 'alert_email must be an e-mail address' })
  @MaxLength(EMAIL_MAX, { message: `alert_email is at most ${EMAIL_MAX} characters` })
  @IsString({ message: 'alert_email must be a string' })
  @Omittable()
  @Trimmed()
  @ApiPropertyOptional({
    description: 'A new address for alerts: it waits as `pending_alert_email` until the 6-digit code e-mailed to it is confirmed (valid 15 minutes; the address waits 24 hours).',
    maxLength: EMAIL_MAX,
    format: 'email',
  })
  alert_email?: string;

  @OptionalReferralCode()
  @ApiPropertyOptional({
    description: 'The code other businesses sign up with to be referred by this one; case is folded. It cannot change once the business has a wallet (409 referral_locked).',
    pattern: REFERRAL_CODE_PATTERN,
  })
  referral_code?: string;
}
