import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OptionalReferralCode, REFERRAL_CODE_MAX, REFERRAL_CODE_PATTERN } from '@lib/businesses';
import { ACCOUNT_EMAIL_MAX, AccountEmail, BUSINESS_NAME_MAX, NewPassword, OptionalFlag, PASSWORD_MAX, RequiredName } from '../account-input';

/** POST /accounts (decision 0034): a person signs up with an address, a password (or a passkey, decision 0037) and their first business's name. */
export class StartSignupRequest {
  @AccountEmail()
  @ApiProperty({ description: 'The person’s e-mail address: a 6-digit code is sent to it. One account per address (409 email_taken).', maxLength: ACCOUNT_EMAIL_MAX })
  email!: string;

  @NewPassword('password', false)
  @ApiPropertyOptional({
    description:
      'The password chosen (400 weak_password says which rule it breaks). Kept only as an argon2id hash. Left out: a passkey sign-up — finished in this browser only, with a passkey registered for the options of POST /accounts/passkey-options.',
    maxLength: PASSWORD_MAX,
  })
  password?: string;

  @RequiredName('business_name', BUSINESS_NAME_MAX)
  @ApiProperty({ description: 'The name of the person’s first business, created when the sign-up is verified (they are its owner).', maxLength: BUSINESS_NAME_MAX })
  business_name!: string;

  @OptionalFlag('simulated')
  @ApiPropertyOptional({ description: 'Create the first business as a simulated one (test keys, no chain watched). Default false: a live business.' })
  simulated?: boolean;

  @OptionalReferralCode()
  @ApiPropertyOptional({
    description: 'The referral code of the business that invited this one (GET /public/referrals/{code} shows whose it is); case is folded. An unknown code is 400 invalid_request. The first business records it as its referrer when the sign-up is verified.',
    minLength: 4,
    maxLength: REFERRAL_CODE_MAX,
    pattern: REFERRAL_CODE_PATTERN,
  })
  referral_code?: string;
}
