import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { Omittable } from '@lib/http';
import { REFERRAL_CODE_MAX, REFERRAL_CODE_MIN, REFERRAL_CODE_RE } from '../referrals';

/**
 * A referral code in a request body (decision 0035): trimmed and folded to lower case, of the
 * codes' shape (4–32 letters, digits and single inner hyphens); left out is fine, null is not.
 * One rule set for every body that carries one (PATCH /business, sign-up, a new business of a
 * person), so the same input gets the same message everywhere. Whether a business holds the code
 * is the use case's to judge.
 */
export function OptionalReferralCode(): PropertyDecorator {
  return applyDecorators(
    MaxLength(REFERRAL_CODE_MAX, { message: `referral_code is at most ${REFERRAL_CODE_MAX} characters` }),
    MinLength(REFERRAL_CODE_MIN, { message: `referral_code is at least ${REFERRAL_CODE_MIN} characters` }),
    Matches(REFERRAL_CODE_RE, { message: `referral_code is ${REFERRAL_CODE_MIN}–${REFERRAL_CODE_MAX} letters, digits and single inner hyphens` }),
    IsString({ message: 'referral_code must be a string' }),
    Omittable(),
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value)),
  );
}
