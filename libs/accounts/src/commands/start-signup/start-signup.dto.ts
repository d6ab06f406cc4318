import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ACCOUNT_EMAIL_MAX, AccountEmail, NewBusinessName, NewBusinessReferralCode, NewBusinessSimulated, NewPassword, PASSWORD_MAX } from '../account-input';

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

  @NewBusinessName('business_name', 'The name of the person’s first business, created when the sign-up is verified (they are its owner).')
  business_name!: string;

  @NewBusinessSimulated('Create the first business as a simulated one (test keys, no chain watched). Default false: a live business.')
  simulated?: boolean;

  @NewBusinessReferralCode(
    'The referral code of the business that invited this one (GET /public/referrals/{code} shows whose it is); case is folded. An unknown code is 400 invalid_request. The first business records it as its referrer when the sign-up is verified.',
  )
  referral_code?: string;
}
