import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsBoolean, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { WEBHOOK_URL_MAX } from '../../../delivery/url-policy';
import { DESCRIPTION_MAX, EVENT_TYPES_MAX } from '../../../domain/endpoint.decider';
import { EVENT_TYPES } from '../../../domain/event-types';
import { Trimmed } from '../text';

export const TYPES_DOC = `Event types to receive, at least one: ${EVENT_TYPES.join(', ')}; or ["*"] for every type, present and future.`;
export const NO_EVENT_TYPES = 'event_types needs at least one event type (or "*" for all)';

/**
 * POST /webhooks: the input's shape, in one place (strings, an array of strings, a boolean,
 * lengths; the description trimmed). Where the URL may point and which types exist are the
 * decider's rules (the URL policy, the catalogue).
 */
export class CreateWebhookBody {
  @ApiProperty({ description: `https address on the public internet, at most ${WEBHOOK_URL_MAX} characters.`, maxLength: WEBHOOK_URL_MAX })
  @IsString()
  url!: string;

  @ApiProperty({ description: TYPES_DOC, type: [String], minItems: 1 })
  @IsArray()
  @ArrayNotEmpty({ message: NO_EVENT_TYPES })
  @ArrayMaxSize(EVENT_TYPES_MAX)
  @IsString({ each: true })
  event_types!: string[];

  @ApiPropertyOptional({ description: 'Free text for you.', maxLength: DESCRIPTION_MAX })
  @Trimmed()
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX, { message: `description is at most ${DESCRIPTION_MAX} characters` })
  description?: string | null;

  @ApiPropertyOptional({ description: 'false creates it stopped (no deliveries). Default true.' })
  @ValidateIf((o: CreateWebhookBody) => o.enabled !== undefined)
  @IsBoolean()
  enabled?: boolean;
}
