import { COUNTRY_CODES } from '@lib/cards';
import { ASSET_CODES, NETWORK_IDS } from '@lib/chains';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, MinLength, ValidationArguments } from 'class-validator';
import { CheckedBy, Trimmed } from '@lib/http';
import { EMAIL_RULE, EmailLength, OmittableChoice, OmittableNotNull } from '../input-rules';

/**
 * POST /checkouts (spec §4): the shape of the input. The handler keeps what depends on the
 * payment, its business or the registry (decision 0014): link_code (link_not_found,
 * link_archived: open-checkout/link-payments.ts), payment_code found (payment_not_found), an active business, rail card
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
  @ApiPropertyOptional({ description: "The payment's code, the last segment of its `url`. Send `payment_code` or `link_code`." })
  payment_code?: string;

  @OmittableNotNull()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @ApiPropertyOptional({ description: "A payment link's code, instead of `payment_code`." })
  link_code?: string;

  @OmittableChoice(['crypto', 'card'], 'rail must be crypto or card', 'How the customer pays. Default `crypto`.')
  rail?: string;

  @OmittableChoice(ASSET_CODES, `asset must be one of ${ASSET_CODES.join(', ')}`, 'The coin, required for a crypto checkout; the business must accept it on `network`.')
  asset?: string;

  @OmittableChoice(NETWORK_IDS, 'network is not a supported network', 'The network the coin is sent on, required for a crypto checkout.')
  network?: string;

  @OmittableNotNull()
  @IsString()
  @EmailLength('email')
  @Trimmed()
  @CheckedBy('the open-checkout handler', EMAIL_RULE)
  @ApiPropertyOptional({ description: "The customer's e-mail, for the receipt. Default: the payment's `customer_email`." })
  email?: string;

  @OmittableChoice(
    COUNTRY_CODES,
    'country must be a two-letter country code (ISO 3166-1 alpha-2, upper case, such as US or GB)',
    "The customer's country, an ISO 3166-1 alpha-2 code in upper case (or XK); another two letters, such as XX or UK, are 400 invalid_request.",
  )
  country?: string;

  @OmittableNotNull()
  @Matches(/^chk_[A-Za-z0-9]{1,64}$/, { message: 'replaces must name a checkout of the same payment' })
  @IsString()
  @MaxLength(100)
  @ApiPropertyOptional({ description: 'A checkout of the same payment that this one replaces (the customer chose another coin or network). The same choice while its quote is live answers that checkout again.' })
  replaces?: string;

  @OmittableChoice(
    ['exact', 'underpaid', 'overpaid', 'wrong_network'],
    ({ value }: ValidationArguments) => (value === 'late' ? 'simulate late is only for mark-sent (it needs an ended quote)' : 'simulate must be exact, underpaid, overpaid or wrong_network'),
    'Simulated businesses only: what the simulated chain sends when the transfer arrives by itself (mark-sent chooses its own). Default `exact`.',
  )
  simulate?: 'exact' | 'underpaid' | 'overpaid' | 'wrong_network';
}
