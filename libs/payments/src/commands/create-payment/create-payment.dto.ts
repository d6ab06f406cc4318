import { IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { PAYMENT_CURRENCIES } from '../../app/simulated-chain';
import { ISO_TIMESTAMP, IsHttpUrl, IsIsoTimestamp, URL_MAX } from '../input-rules';

/**
 * POST /payments (spec §2, §4): the shape of the input. Rules that need state or a table stay
 * with the handler and the decider (decision 0014): the amount range per currency (decider),
 * `expires_at` within 90 days of the business's clock, the metadata limits and reserved keys
 * (domain/metadata.ts, `field` = `metadata.<key>`), and the e-mail address (its code is
 * invalid_email, not the pipe's invalid_request).
 */
export class CreatePaymentRequest {
  // class-validator runs a property's rules from the last decorator up, and the pipe reports the
  // first that fails: type and length checks are written below the format checks they precede.
  // The standard rules (@Matches, @MaxLength) also give the OpenAPI document its pattern and
  // length; the custom ones (@IsIsoTimestamp: a real instant, @IsHttpUrl: URL parsing) refine them.
  @IsInt({ message: 'amount must be an integer in minor units' })
  amount!: number;

  @IsIn(PAYMENT_CURRENCIES, { message: `currency must be one of ${PAYMENT_CURRENCIES.join(', ')}` })
  @IsString()
  @Length(3, 3, { message: 'currency must be a three-letter code' })
  currency!: string;

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  reference?: string | null;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsString()
  @MaxLength(254)
  customer_email?: string | null;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsObject({ message: 'metadata must be an object of string values' })
  metadata?: Record<string, unknown> | null;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsHttpUrl({ message: 'success_url must be an absolute http(s) URL of at most 2048 characters' })
  @MaxLength(URL_MAX, { message: 'success_url must be an absolute http(s) URL of at most 2048 characters' })
  @IsString()
  success_url?: string | null;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsHttpUrl({ message: 'cancel_url must be an absolute http(s) URL of at most 2048 characters' })
  @MaxLength(URL_MAX, { message: 'cancel_url must be an absolute http(s) URL of at most 2048 characters' })
  @IsString()
  cancel_url?: string | null;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsIsoTimestamp({ message: 'expires_at must be an ISO 8601 timestamp' })
  @Matches(ISO_TIMESTAMP, { message: 'expires_at must be an ISO 8601 timestamp' })
  @IsString()
  expires_at?: string | null;
}
