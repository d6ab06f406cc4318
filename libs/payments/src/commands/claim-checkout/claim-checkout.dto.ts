import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { CheckedBy, Trimmed } from '@lib/http';
import { EMAIL_RULE, EmailLength } from '../input-rules';

/**
 * POST /checkouts/{id}/claim (spec §4): the shape. Whether the hash fits the checkout's network
 * (invalid_tx_hash) is the decider's; the e-mail address (invalid_email) the handler's.
 */
export class ClaimCheckoutRequest {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @CheckedBy('the checkout decider', { description: "In the form of a transaction hash on the checkout's network (else 400 invalid_tx_hash); the service does not look it up." })
  @ApiProperty({ description: 'The hash of the transfer the customer says they sent.' })
  tx_hash!: string;

  @IsOptional()
  @IsString()
  @EmailLength('email')
  @Trimmed()
  @CheckedBy('the claim-checkout handler', EMAIL_RULE)
  @ApiPropertyOptional({ description: "The customer's e-mail, kept when the checkout has none." })
  email?: string;
}
