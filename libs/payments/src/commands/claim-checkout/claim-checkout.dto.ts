import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

/**
 * POST /checkouts/{id}/claim (spec §4): the shape. Whether the hash fits the checkout's network
 * (invalid_tx_hash) is the decider's; the e-mail address (invalid_email) the handler's.
 */
export class ClaimCheckoutRequest {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  tx_hash!: string;

  @IsOptional()
  @IsString()
  @MaxLength(254)
  email?: string;
}
