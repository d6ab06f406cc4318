import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsBoolean, IsString, MaxLength, ValidateIf } from 'class-validator';
import { WEBHOOK_URL_MAX } from '../../../delivery/url-policy';
import { DESCRIPTION_MAX, EVENT_TYPES_MAX } from '../../../domain/endpoint.decider';
import { NO_EVENT_TYPES, TYPES_DOC } from '../create-endpoint/create-endpoint.dto';
import { Trimmed } from '../text';

/**
 * PATCH /webhooks/{id}: send only what changes; null is not a value of any field. The input's
 * shape, in one place; the URL policy and the catalogue are the decider's.
 */
export class UpdateWebhookBody {
  @ApiPropertyOptional({ description: `https address on the public internet, at most ${WEBHOOK_URL_MAX} characters.`, maxLength: WEBHOOK_URL_MAX })
  @ValidateIf((o: UpdateWebhookBody) => o.url !== undefined)
  @IsString()
  url?: string;

  @ApiPropertyOptional({ description: `${TYPES_DOC} Replaces the whole list.`, type: [String], minItems: 1 })
  @ValidateIf((o: UpdateWebhookBody) => o.event_types !== undefined)
  @IsArray()
  @ArrayNotEmpty({ message: NO_EVENT_TYPES })
  @ArrayMaxSize(EVENT_TYPES_MAX)
  @IsString({ each: true })
  event_types?: string[];

  @ApiPropertyOptional({ maxLength: DESCRIPTION_MAX })
  @Trimmed()
  @ValidateIf((o: UpdateWebhookBody) => o.description !== undefined)
  @IsString()
  @MaxLength(DESCRIPTION_MAX)
  description?: string;

  @ApiPropertyOptional({ description: 'false stops new deliveries and keeps the settings.' })
  @ValidateIf((o: UpdateWebhookBody) => o.enabled !== undefined)
  @IsBoolean()
  enabled?: boolean;
}
