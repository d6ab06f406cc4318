/** How this deployment runs the webhook use cases (Nest: WEBHOOKS_OPTIONS). */
export interface WebhooksOptions {
  /** WEBHOOK_ALLOW_PRIVATE_URLS: the URL policy endpoints are created and changed under. */
  allowPrivateUrls: boolean;
  /** Wall time (tests inject theirs): secret activations and rotation grace, test events. */
  now?: () => Date;
  /** How long the previous secret still signs after a rotation (default 24 hours). */
  rotationGraceMs?: number;
}

export const WEBHOOKS_OPTIONS = Symbol('WEBHOOKS_OPTIONS');

export const DEFAULT_ROTATION_GRACE_MS = 24 * 3600_000;

export const wallClock = (): Date => new Date();
