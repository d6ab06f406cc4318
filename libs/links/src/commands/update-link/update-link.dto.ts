import { ApiPropertyOptional } from '@nestjs/swagger';
import { AcceptedAssetDto } from '@lib/businesses';
import { LINK_NAME_MAX, LinkAmount, LinkAskEmail, LinkAssets, LinkCurrency, LinkDescription, LinkMetadata, LinkName, LinkRails, NullableHttpUrl } from '../link-input';
import { ChangeBody } from '@lib/http';

/** PATCH /links/{id} (decision 0030): send only what changes; payments already made keep their price. */
@ChangeBody()
export class UpdateLinkRequest {
  @LinkName(false)
  @ApiPropertyOptional({ description: 'The link’s name.', maxLength: LINK_NAME_MAX })
  name?: string;

  @LinkDescription()
  description?: string | null;

  @LinkAmount(false)
  @ApiPropertyOptional({ description: 'The fixed price, in minor units of `currency` (new checkouts only).' })
  amount?: number;

  @LinkCurrency(false)
  @ApiPropertyOptional({ description: 'The currency of `amount`.' })
  currency?: string;

  @LinkRails()
  rails?: string[] | null;

  @LinkAssets()
  assets?: AcceptedAssetDto[] | null;

  @NullableHttpUrl()
  @ApiPropertyOptional({ description: 'Where the checkout page sends the customer after paying; null: nowhere.', nullable: true })
  success_url?: string | null;

  @LinkAskEmail()
  ask_email?: boolean;

  @LinkMetadata(true)
  @ApiPropertyOptional({ description: 'Merged by key: "" or null removes a key; null clears every key.', nullable: true })
  metadata?: Record<string, unknown> | null;
}
