import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsBoolean, IsString, MaxLength } from 'class-validator';
import { WEBHOOK_URL_MAX } from '../../../delivery/url-policy';
import { DESCRIPTION_MAX, EVENT_TYPES_MAX } from '../../../domain/endpoint.decider';
import { ALL_EVENT_TYPES, EVENT_TYPES } from '../../../domain/event-types';
import { CheckedBy, Omittable, PlainText } from '@lib/http';
import { Trimmed } from '../text';

export const TYPES_DOC = `Event types to receive, at least one: ${EVENT_TYPES.join(', ')}; or ["*"] for every type, present and future.`;
/** What the decider checks of `url` (the URL policy) and of `event_types` (the catalogue), for the API document. */
export const URL_RULE = { format: 'uri', maxLength: WEBHOOK_URL_MAX };
export const EVENT_TYPES_RULE = { items: { enum: [ALL_EVENT_TYPES, ...EVENT_TYPES] } };
export const NO_EVENT_TYPES = 'event_types needs at least one event type (or "*" for all)';

/**
 * POST /webhooks: the input's shape, in one place (strings, an array of strings, a boolean,
 * lengths; the description trimmed). Where the URL may point and which types exist are the
 * decider's rules (the URL policy, the catalogue).
 */
export class CreateWebhookBody {
  @ApiProperty({ description: 'https address on the public internet: private, loopback and link-local hosts are refused.' })
  @CheckedBy('the URL policy (delivery/url-policy.ts)', URL_RULE)
  @IsString()
  url!: string;

  @ApiProperty({ description: TYPES_DOC, type: [String], minItems: 1 })
  @IsArray()
  @ArrayNotEmpty({ message: NO_EVENT_TYPES })
  @ArrayMaxSize(EVENT_TYPES_MAX)
  @IsString({ each: true })
  @CheckedBy('the endpoint decider', EVENT_TYPES_RULE)
  event_types!: string[];

  @ApiPropertyOptional({ description: 'Free text for you.', maxLength: DESCRIPTION_MAX })
  @Trimmed()
  @Omittable() // left out: no description; null is refused, as PATCH refuses it (hooks audit L1)
  @IsString()
  @MaxLength(DESCRIPTION_MAX, { message: `description is at most ${DESCRIPTION_MAX} characters` })
  @PlainText('multi-line')
  description?: string;

  @ApiPropertyOptional({ description: 'false creates it stopped (no deliveries). Default true.' })
  @Omittable()
  @IsBoolean()
  enabled?: boolean;
}
