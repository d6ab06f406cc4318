import { Allow, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';

/**
 * Request bodies of the payment and checkout routes (spec §4). class-validator checks shapes and
 * types (unknown fields are refused by the global pipe); the rules that need state or the
 * registry (amount range, currency, metadata, e-mail, asset on network) are the application's.
 */

export class CreatePaymentBody {
  @IsInt({ message: 'amount must be an integer in minor units' })
  amount!: number;

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
  @IsString()
  success_url?: string | null;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsString()
  cancel_url?: string | null;

  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsString()
  expires_at?: string | null;
}

export class UpdatePaymentBody {
  /** An object of string (or null) values, or null to clear all; checked by the domain's metadata rules. */
  @Allow()
  metadata?: Record<string, string | null> | null;
}

export class OpenCheckoutBody {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  payment_code?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  link_code?: string;

  @IsOptional()
  @IsString()
  rail?: string;

  @IsOptional()
  @IsString()
  asset?: string;

  @IsOptional()
  @IsString()
  network?: string;

  @IsOptional()
  @IsString()
  @MaxLength(254)
  email?: string;

  @IsOptional()
  @IsString()
  country?: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  replaces?: string;

  @IsOptional()
  @IsString()
  simulate?: string;
}

export class ClaimCheckoutBody {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  tx_hash!: string;

  @IsOptional()
  @IsString()
  @MaxLength(254)
  email?: string;
}

export class MarkSentBody {
  @IsOptional()
  @IsIn(['exact', 'underpaid', 'overpaid', 'wrong_network', 'late'], { message: 'simulate must be exact, underpaid, overpaid, wrong_network or late' })
  simulate?: 'exact' | 'underpaid' | 'overpaid' | 'wrong_network' | 'late';
}

export class AdvanceClockBody {
  @IsInt({ message: 'seconds must be a whole number of seconds' })
  @Min(1)
  @Max(366 * 24 * 3600)
  seconds!: number;
}
