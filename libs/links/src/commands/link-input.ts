import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Length, MaxLength, MinLength, ValidateIf, ValidateNested } from 'class-validator';
import { AcceptedAssetDto, CHECKOUT_RAILS } from '@lib/businesses';
import { CheckedBy, Omittable, PlainText, Trimmed, TrimmedOrNull } from '@lib/http';
import { METADATA_PATCH_RULE, METADATA_RULE, NullableHttpUrl, PAYMENT_CURRENCIES, paymentAmountRule } from '@lib/payments';

export const LINK_NAME_MAX = 200;
export const LINK_DESCRIPTION_MAX = 1000;

/** The link's name (required on create): 1 to 200 characters, trimmed, one line of plain text. */
export function LinkName(required: boolean): PropertyDecorator {
  return applyDecorators(
    PlainText('single-line'),
    MinLength(1, { message: 'name must not be blank' }),
    MaxLength(LINK_NAME_MAX, { message: `name is at most ${LINK_NAME_MAX} characters` }),
    IsString({ message: 'name must be a string' }),
    ...(required ? [] : [Omittable()]),
    Trimmed(),
  );
}

/** The fields a link's body can carry (create: amount, currency and name required). */
export function LinkAmount(required: boolean): PropertyDecorator {
  return applyDecorators(CheckedBy('the link handlers (libs/money validatePaymentAmount)', paymentAmountRule()), IsInt({ message: 'amount must be an integer in minor units' }), ...(required ? [] : [Omittable()]));
}

export function LinkCurrency(required: boolean): PropertyDecorator {
  return applyDecorators(
    IsIn(PAYMENT_CURRENCIES, { message: `currency must be one of ${PAYMENT_CURRENCIES.join(', ')}` }),
    Length(3, 3, { message: 'currency must be a three-letter code' }),
    IsString({ message: 'currency must be a string' }),
    ...(required ? [] : [Omittable()]),
  );
}

/** What the customer pays for: trimmed, blank is null (none, as null), at most 1000 characters of plain text (line breaks allowed). */
export function LinkDescription(): PropertyDecorator {
  return applyDecorators(
    PlainText('multi-line'),
    MaxLength(LINK_DESCRIPTION_MAX, { message: `description is at most ${LINK_DESCRIPTION_MAX} characters` }),
    IsString({ message: 'description must be a string or null' }),
    IsOptional(),
    TrimmedOrNull(),
    ApiPropertyOptional({ description: 'What the customer pays for, shown on the checkout page and on each payment; trimmed; null or blank: none.', nullable: true, maxLength: LINK_DESCRIPTION_MAX }),
  );
}

export function LinkRails(): PropertyDecorator {
  return applyDecorators(
    IsIn(CHECKOUT_RAILS, { each: true, message: 'rails must list crypto and/or card' }),
    ArrayUnique({ message: 'rails must not repeat a rail' }),
    ArrayMinSize(1, { message: 'rails must list at least one rail (or be null)' }),
    IsArray({ message: 'rails must be an array or null' }),
    IsOptional(),
    ApiPropertyOptional({ description: 'The rails customers may choose on this link (within the business’s checkout settings); null: the business’s.', type: [String], enum: CHECKOUT_RAILS, nullable: true }),
  );
}

export function LinkAssets(): PropertyDecorator {
  return applyDecorators(
    ValidateNested({ each: true }),
    Type(() => AcceptedAssetDto),
    ArrayMaxSize(100, { message: 'assets lists at most 100 pairs' }),
    IsArray({ message: 'assets must be an array of {asset, network} or null' }),
    IsOptional(),
    ApiPropertyOptional({ description: 'The coins and networks customers may pay with on this link (within the business’s checkout settings); null: the business’s.', type: [AcceptedAssetDto], nullable: true }),
  );
}

export function LinkAskEmail(): PropertyDecorator {
  return applyDecorators(
    IsBoolean({ message: 'ask_email must be true or false' }),
    Omittable(),
    ApiPropertyOptional({ description: 'Ask the customer’s e-mail (400 email_required without one); the business’s checkout settings may ask it too.' }),
  );
}

export function LinkMetadata(patch: boolean): PropertyDecorator {
  return applyDecorators(
    CheckedBy('domain/metadata.ts (libs/payments)', patch ? METADATA_PATCH_RULE : METADATA_RULE),
    IsObject({ message: 'metadata must be an object of string values' }),
    IsOptional(),
    ValidateIf((_o: object, v: unknown) => v !== null),
  );
}

export { NullableHttpUrl };
