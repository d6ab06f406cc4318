import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signatures, made with the `standardwebhooks` package (the reference
 * implementation receivers verify with): `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
 * With several secrets (a rotation's grace period) the header carries one signature per secret,
 * space-separated, the current secret first; a receiver holding either secret verifies.
 */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signPayload(secrets: readonly string[], messageId: string, timestamp: Date, body: string): SignedHeaders {
  if (secrets.length === 0) throw new Error('signing needs at least one secret');
  const seconds = Math.floor(timestamp.getTime() / 1000);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, new Date(seconds * 1000), body)).join(' '),
  };
}
