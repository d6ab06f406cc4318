import { IsObject, IsOptional } from 'class-validator';
import { ChangeBody, CheckedBy } from '@lib/http';
import { METADATA_PATCH_RULE } from '../input-rules';

/**
 * PATCH /payments/{id} (spec §4). `metadata` is an object of string (or null) values, or null to
 * clear all: its limits, reserved keys and `field` = `metadata.<key>` are the domain's metadata
 * rules (domain/metadata.ts), checked by the handler (decision 0014) and described by @CheckedBy.
 */
@ChangeBody()
export class UpdatePaymentMetadataRequest {
  @IsOptional()
  @IsObject({ message: 'metadata must be an object or null' })
  @CheckedBy('domain/metadata.ts', METADATA_PATCH_RULE)
  metadata?: Record<string, string | null> | null;
}
