import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsBoolean, IsString, MaxLength } from 'class-validator';
import { DESCRIPTION_MAX, EVENT_TYPES_MAX } from '../../../domain/endpoint.decider';
import { EVENT_TYPES_RULE, NO_EVENT_TYPES, TYPES_DOC, URL_RULE } from '../create-endpoint/create-endpoint.dto';
import { ChangeBody, CheckedBy, Omittable, PlainText } from '@lib/http';
import { Trimmed } from '../text';

/**
 * PATCH /webhooks/{id}: send only what changes; null is not a value of any field. The input's
 * shape, in one place; the URL policy and the catalogue are the decider's.
 */
@ChangeBody()
export class UpdateWebhookBody {
  @ApiPropertyOptional({ description: 'https address on the public internet: private, loopback and link-local hosts are refused.' })
  @CheckedBy('the URL policy (delivery/url-policy.ts)', URL_RULE)
  @Omittable()
  @IsString()
  url?: string;

  @ApiPropertyOptional({ description: `${TYPES_DOC} Replaces the whole list.`, type: [String], minItems: 1 })
  @Omittable()
  @IsArray()
  @ArrayNotEmpty({ message: NO_EVENT_TYPES })
  @ArrayMaxSize(EVENT_TYPES_MAX)
  @IsString({ each: true })
  @CheckedBy('the endpoint decider', EVENT_TYPES_RULE)
  event_types?: string[];

  @ApiPropertyOptional({ maxLength: DESCRIPTION_MAX })
  @Trimmed()
  @Omittable()
  @IsString()
  @MaxLength(DESCRIPTION_MAX)
  @PlainText('multi-line')
  description?: string;

  @ApiPropertyOptional({ description: 'false stops new deliveries and keeps the settings.' })
  @Omittable()
  @IsBoolean()
  enabled?: boolean;
}
