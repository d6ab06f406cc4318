import { Header, SetMetadata, applyDecorators } from '@nestjs/common';
import { IdempotencyKeyIgnored } from './idempotency.interceptor';

export const SHOWN_ONCE = 'response:shown-once';

/**
 * An answer that holds a secret in full, shown this once (an API key, a webhook signing secret, a
 * wallet's recovery phrase, a TOTP secret, recovery codes): `Cache-Control: no-store`, so no
 * browser or intermediary cache keeps it, and never stored for an Idempotency-Key replay (§8.8,
 * @IdempotencyKeyIgnored). The OpenAPI document shows the header on the route's success
 * responses. As a route preset's rule: `shownOnce: true` (route-presets.ts).
 */
export const ShownOnce = () => applyDecorators(SetMetadata(SHOWN_ONCE, true), Header('Cache-Control', 'no-store'), IdempotencyKeyIgnored());
