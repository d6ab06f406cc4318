import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { DESCRIPTION_MAX, EVENT_TYPES, EVENT_TYPES_MAX, WEBHOOK_URL_MAX } from '@lib/webhooks';

const TYPES_DOC = `Event types to receive, at least one: ${EVENT_TYPES.join(', ')}; or ["*"] for every type, present and future.`;

/** POST /webhooks. Types are checked here; the rules (URL policy, known types) in the decider. */
export class CreateWebhookBody {
  @ApiProperty({ description: `https address on the public internet, at most ${WEBHOOK_URL_MAX} characters.`, maxLength: WEBHOOK_URL_MAX })
  @IsString()
  url!: string;

  @ApiProperty({ description: TYPES_DOC, type: [String], minItems: 1 })
  @IsArray()
  @ArrayMaxSize(EVENT_TYPES_MAX)
  @IsString({ each: true })
  event_types!: string[];

  @ApiPropertyOptional({ description: 'Free text for you.', maxLength: DESCRIPTION_MAX })
  @IsOptional()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ description: 'false creates it stopped (no deliveries). Default true.' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** PATCH /webhooks/{id}: send only what changes; null is not a value of any field. */
export class UpdateWebhookBody {
  @ApiPropertyOptional({ description: `https address on the public internet, at most ${WEBHOOK_URL_MAX} characters.`, maxLength: WEBHOOK_URL_MAX })
  @ValidateIf((o: UpdateWebhookBody) => o.url !== undefined)
  @IsString()
  url?: string;

  @ApiPropertyOptional({ description: `${TYPES_DOC} Replaces the whole list.`, type: [String], minItems: 1 })
  @ValidateIf((o: UpdateWebhookBody) => o.event_types !== undefined)
  @IsArray()
  @ArrayMaxSize(EVENT_TYPES_MAX)
  @IsString({ each: true })
  event_types?: string[];

  @ApiPropertyOptional({ maxLength: DESCRIPTION_MAX })
  @ValidateIf((o: UpdateWebhookBody) => o.description !== undefined)
  @IsString()
  @MaxLength(DESCRIPTION_MAX)
  description?: string;

  @ApiPropertyOptional({ description: 'false stops new deliveries and keeps the settings.' })
  @ValidateIf((o: UpdateWebhookBody) => o.enabled !== undefined)
  @IsBoolean()
  enabled?: boolean;
}
