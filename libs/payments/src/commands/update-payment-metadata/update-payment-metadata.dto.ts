import { Allow } from 'class-validator';

/**
 * PATCH /payments/{id} (spec §4). `metadata` is an object of string (or null) values, or null to
 * clear all: its limits, reserved keys and `field` = `metadata.<key>` are the domain's metadata
 * rules (domain/metadata.ts), checked by the handler (decision 0014).
 */
export class UpdatePaymentMetadataRequest {
  @Allow()
  metadata?: Record<string, string | null> | null;
}
