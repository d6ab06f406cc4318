import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AcceptedAssetDto } from '@lib/businesses';
import { LINK_NAME_MAX, LinkAmount, LinkAskEmail, LinkAssets, LinkCurrency, LinkDescription, LinkMetadata, LinkName, LinkRails, NullableHttpUrl } from '../link-input';

/** POST /links (decision 0030): the shape of the input; the amount range per currency and the metadata rules are the handler's. */
export class CreateLinkRequest {
  @LinkName(true)
  @ApiProperty({ description: 'The link’s name, shown on its checkout page.', maxLength: LINK_NAME_MAX })
  name!: string;

  @LinkDescription()
  description?: string | null;

  @LinkAmount(true)
  @ApiProperty({ description: 'The fixed price, in minor units of `currency`.', example: 2500 })
  amount!: number;

  @LinkCurrency(true)
  @ApiProperty({ description: 'The currency of `amount` (ISO 4217).', example: 'USD' })
  currency!: string;

  @LinkRails()
  rails?: string[] | null;

  @LinkAssets()
  assets?: AcceptedAssetDto[] | null;

  @NullableHttpUrl()
  @ApiPropertyOptional({ description: 'Where the checkout page sends the customer after paying.', nullable: true })
  success_url?: string | null;

  @LinkAskEmail()
  ask_email?: boolean;

  @LinkMetadata(false)
  @ApiPropertyOptional({ description: 'String keys to string values, copied onto each payment the link makes (the rules of payment metadata).', nullable: true })
  metadata?: Record<string, unknown> | null;
}
