import { ASSET_CODES, NETWORK_IDS } from '@lib/chains';
import { IsIn, IsString, Matches, MaxLength, MinLength, ValidationArguments } from 'class-validator';
import { OmittableNotNull } from '../input-rules';

/**
 * POST /checkouts (spec §4): the shape of the input. The handler keeps what depends on the
 * payment, its business or the registry (decision 0014): link_code (link_not_found until links
 * exist), payment_code required and found (payment_not_found), an active business, rail card
 * (rail_unavailable), asset and network required for crypto and the asset carried on the network
 * (asset_unavailable), the e-mail address (invalid_email), simulate on a live business, `replaces`
 * naming a checkout of the same payment.
 */
/** Every field may be left out; none may be null (a null asset is not a missing one). */
export class OpenCheckoutRequest {
  // class-validator runs a property's rules from the last decorator up: format checks are written above the type checks they follow.
  @OmittableNotNull()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  payment_code?: string;

  @OmittableNotNull()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  link_code?: string;

  @OmittableNotNull()
  @IsIn(['crypto', 'card'], { message: 'rail must be crypto or card' })
  @IsString()
  rail?: string;

  @OmittableNotNull()
  @IsIn(ASSET_CODES, { message: `asset must be one of ${ASSET_CODES.join(', ')}` })
  @IsString()
  asset?: string;

  @OmittableNotNull()
  @IsIn(NETWORK_IDS, { message: 'network is not a supported network' })
  @IsString()
  network?: string;

  @OmittableNotNull()
  @IsString()
  @MaxLength(254)
  email?: string;

  @OmittableNotNull()
  @Matches(/^[A-Z]{2}$/, { message: 'country must be a two-letter code (ISO 3166-1 alpha-2, upper case)' })
  @IsString()
  country?: string;

  @OmittableNotNull()
  @Matches(/^chk_[A-Za-z0-9]{1,64}$/, { message: 'replaces must name a checkout of the same payment' })
  @IsString()
  @MaxLength(100)
  replaces?: string;

  @OmittableNotNull()
  @IsIn(['exact', 'underpaid', 'overpaid', 'wrong_network'], {
    message: ({ value }: ValidationArguments) => (value === 'late' ? 'simulate late is only for mark-sent (it needs an ended quote)' : 'simulate must be exact, underpaid, overpaid or wrong_network'),
  })
  @IsString()
  simulate?: 'exact' | 'underpaid' | 'overpaid' | 'wrong_network';
}
