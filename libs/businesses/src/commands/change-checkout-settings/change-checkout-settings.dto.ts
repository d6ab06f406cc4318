import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsEmail, IsIn, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ASSET_CODES, NETWORK_IDS } from '@lib/chains';
import { CHECKOUT_RAILS } from '../../checkout-settings';
import { EMAIL_MAX } from '../create-business/create-business.dto';
import { OptionalText } from '../text';
import { ChangeBody, Omittable, PlainText } from '@lib/http';

export const DISPLAY_NAME_MAX = 100;

/** One coin on one network customers may pay with. */
export class AcceptedAssetDto {
  @IsIn(ASSET_CODES, { message: `asset must be one of ${ASSET_CODES.join(', ')}` })
  @IsString({ message: 'asset must be a string' })
  @ApiPropertyOptional({ description: 'The coin.', enum: ASSET_CODES })
  asset!: string;

  @IsIn(NETWORK_IDS, { message: 'network is not a supported network' })
  @IsString({ message: 'network must be a string' })
  @ApiPropertyOptional({ description: 'A network that carries the asset.', enum: NETWORK_IDS })
  network!: string;
}

/**
 * PATCH /checkout-settings (decision 0028): send only what changes. Texts are trimmed, blank is
 * null (show the business's own). `rails` and `assets` replace the whole list; `assets: null`
 * accepts every pair the service carries.
 */
@ChangeBody()
export class ChangeCheckoutSettingsDto {
  @PlainText('single-line')
  @OptionalText('display_name', DISPLAY_NAME_MAX)
  @ApiPropertyOptional({ description: 'The name customers see on the checkout page and the receipt; null shows the business name.', nullable: true })
  display_name?: string | null;

  @IsEmail({}, { message: 'support_email must be an e-mail address' })
  @OptionalText('support_email', EMAIL_MAX)
  @ApiPropertyOptional({ description: 'The support address customers see; null shows the business support e-mail.', nullable: true })
  support_email?: string | null;

  @IsBoolean({ message: 'ask_email must be true or false' })
  @Omittable()
  @ApiPropertyOptional({ description: 'Ask customers for their e-mail: a checkout without one is refused with `email_required`.' })
  ask_email?: boolean;

  @IsIn(CHECKOUT_RAILS, { each: true, message: 'rails must list crypto and/or card' })
  @ArrayUnique({ message: 'rails must not repeat a rail' })
  @ArrayMinSize(1, { message: 'rails must keep at least one rail' })
  @IsArray({ message: 'rails must be an array' })
  @Omittable()
  @ApiPropertyOptional({ description: 'The rails customers may choose (replaces the list).', type: [String], enum: CHECKOUT_RAILS })
  rails?: string[];

  @ValidateNested({ each: true })
  @Type(() => AcceptedAssetDto)
  @ArrayMaxSize(100, { message: 'assets lists at most 100 pairs' })
  @IsArray({ message: 'assets must be an array of {asset, network} or null' })
  @IsOptional()
  @ApiPropertyOptional({ description: 'The coins and networks customers may pay with (replaces the list); null accepts every pair the service carries.', type: [AcceptedAssetDto], nullable: true })
  assets?: AcceptedAssetDto[] | null;
}
