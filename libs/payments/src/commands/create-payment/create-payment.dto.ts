import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { CheckedBy, PlainText, Trimmed } from '@lib/http';
import { PAYMENT_CURRENCIES } from '../../app/simulated-chain';
import { EMAIL_RULE, EmailLength, ISO_TIMESTAMP, IsIsoTimestamp, METADATA_RULE, NullableHttpUrl, PAYMENT_EXPIRY_MAX_DAYS, paymentAmountRule } from '../input-rules';

/**
 * POST /payments (spec §2, §4): the shape of the input. Rules that need state or a table stay
 * with the handler and the decider (decision 0014): the amount range per currency (decider),
 * `expires_at` within 90 days of the business's clock, the metadata limits and reserved keys
 * (domain/metadata.ts, `field` = `metadata.<key>`), and the e-mail address (its code is
 * invalid_email, not the pipe's invalid_request). @CheckedBy describes those rules for the API
 * document; @ApiProperty gives the words.
 */
export class CreatePaymentRequest {
  // class-validator runs a property's rules from the last decorator up, and the pipe reports the
  // first that fails: type and length checks are written below the format checks they precede.
  // The standard rules (@Matches, @MaxLength) also give the OpenAPI document its pattern and
  // length; the custom ones (@IsIsoTimestamp: a real instant, @IsHttpUrl: URL parsing) refine them.
  @ApiProperty({ description: 'The price, in minor units of `currency`.', example: 2500 })
  @CheckedBy('the payment decider (libs/money validatePaymentAmount)', paymentAmountRule())
  @IsInt({ message: 'amount must be an integer in minor units' })
  amount!: number;

  @ApiProperty({ description: 'The currency of `amount` (ISO 4217).', example: 'USD' })
  @IsIn(PAYMENT_CURRENCIES, { message: `currency must be one of ${PAYMENT_CURRENCIES.join(', ')}` })
  @IsString()
  @Length(3, 3, { message: 'currency must be a three-letter code' })
  currency!: string;

  @ApiPropertyOptional({ description: 'What the customer pays for, shown on the checkout page and the receipt.' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  @PlainText('multi-line')
  description?: string;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  @PlainText('single-line')
  @ApiPropertyOptional({ description: 'Your own identifier for the payment: the same reference, amount and currency returns the same payment, so a create without Idempotency-Key is safe to retry; a reference held by a live payment of another amount or currency, or by one that received funds, is refused (409 reference_in_use).' })
  reference?: string | null;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsString()
  @EmailLength('customer_email')
  @Trimmed()
  @CheckedBy('the create-payment handler', EMAIL_RULE)
  @ApiPropertyOptional({ description: "The customer's e-mail: the payment gets its customer, and the checkout does not ask for it." })
  customer_email?: string | null;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsObject({ message: 'metadata must be an object of string values' })
  @CheckedBy('domain/metadata.ts', METADATA_RULE)
  metadata?: Record<string, unknown> | null;

  @NullableHttpUrl()
  @ApiPropertyOptional({ description: 'Where the checkout page sends the customer after paying.' })
  success_url?: string | null;

  @NullableHttpUrl()
  @ApiPropertyOptional({ description: 'Where the checkout page sends a customer who leaves without paying.' })
  cancel_url?: string | null;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsIsoTimestamp({ message: 'expires_at must be an ISO 8601 timestamp' })
  @Matches(ISO_TIMESTAMP, { message: 'expires_at must be an ISO 8601 timestamp' })
  @IsString()
  @CheckedBy('the create-payment handler', { description: `In the future and at most ${PAYMENT_EXPIRY_MAX_DAYS} days ahead of now (a simulated business's test clock).` })
  @ApiPropertyOptional({ description: 'When the payment stops taking new checkouts (then 410 payment_expired).' })
  expires_at?: string | null;
}
