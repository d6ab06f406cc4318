import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsNotEmpty, IsString, IsUrl, Matches, MaxLength, MinLength } from 'class-validator';
import { REFERRAL_CODE_MAX, REFERRAL_CODE_MIN, REFERRAL_CODE_PATTERN, REFERRAL_CODE_RE } from '../../referrals';
import { EMAIL_MAX, NAME_MAX, WEBSITE_MAX } from '../create-business/create-business.dto';
import { OptionalText, Trimmed } from '../text';
import { ChangeBody, Omittable, PlainText } from '@lib/http';

const lowerTrimmed = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value));

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

  @MaxLength(REFERRAL_CODE_MAX, { message: `referral_code is at most ${REFERRAL_CODE_MAX} characters` })
  @MinLength(REFERRAL_CODE_MIN, { message: `referral_code is at least ${REFERRAL_CODE_MIN} characters` })
  @Matches(REFERRAL_CODE_RE, { message: `referral_code is ${REFERRAL_CODE_MIN}–${REFERRAL_CODE_MAX} letters, digits and single inner hyphens` })
  @IsString({ message: 'referral_code must be a string' })
  @Omittable()
  @lowerTrimmed()
  @ApiPropertyOptional({
    description: 'The code other businesses sign up with to be referred by this one; case is folded. It cannot change once the business has a wallet (409 referral_locked).',
    pattern: REFERRAL_CODE_PATTERN,
  })
  referral_code?: string;
}
