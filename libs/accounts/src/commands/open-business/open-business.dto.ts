import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OptionalReferralCode, REFERRAL_CODE_MAX, REFERRAL_CODE_PATTERN } from '@lib/businesses';
import { BUSINESS_NAME_MAX, OptionalFlag, RequiredName } from '../account-input';

/** POST /businesses (decision 0039): a signed-in person creates another business and becomes its owner. */
export class OpenBusinessRequest {
  @RequiredName('name', BUSINESS_NAME_MAX)
  @ApiProperty({ description: 'The business’s name.', maxLength: BUSINESS_NAME_MAX })
  name!: string;

  @OptionalFlag('simulated')
  @ApiPropertyOptional({ description: 'A simulated business (test keys, no chain watched). Default false: a live business, as at sign-up.' })
  simulated?: boolean;

  @OptionalReferralCode()
  @ApiPropertyOptional({
    description: 'The referral code of the business that invited this one (decision 0035); case is folded. An unknown code is 400 invalid_request.',
    minLength: 4,
    maxLength: REFERRAL_CODE_MAX,
    pattern: REFERRAL_CODE_PATTERN,
  })
  referral_code?: string;
}
