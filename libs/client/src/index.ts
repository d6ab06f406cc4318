import createFetchClient, { type Client } from 'openapi-fetch';
import type { Error as ErrorEnvelope, paths } from './openapi-types';

/**
 * The typed client of the Payments API: openapi-fetch over the types generated from the
 * OpenAPI document (openapi-types.ts, `npm run client:generate`). Every path, parameter, body
 * and answer is typed from the document the server serves; see README.md, "Typed client".
 *
 *   const api = createPaymentsClient({ baseUrl: 'https://api.example.com', apiKey: process.env.API_KEY });
 *   const { data, error } = await api.POST('/payments', { body: { amount: 2500, currency: 'USD' } });
 */

/**
 * `paths`, `components`, `operations`, and a named type per component of the document: the
 * resources (`Payment`, `Checkout`, `Receipt`, `WebhookEndpoint`, `Event`, ...), their lists
 * (`PaymentList`, ...), the request bodies (`CreatePaymentBody`, ...) and `Error`, the envelope.
 */
export type * from './openapi-types';

/** The `error` member of every error answer (spec §7): branch on `code`. */
export type ApiError = ErrorEnvelope['error'];
export type ErrorCode = ApiError['code'];

export type PaymentsClient = Client<paths>;

export interface PaymentsClientOptions {
  /** The API's address: `https://api.example.com` or `https://api.example.com/api/v1`. */
  baseUrl: string;
  /** A secret or restricted API key, sent as `Authorization: Bearer <key>`; none for the public routes. */
  apiKey?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Another fetch (tests, proxies); default the global one. */
  fetch?: (request: Request) => Promise<Response>;
}

export function createPaymentsClient(options: PaymentsClientOptions): PaymentsClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  return createFetchClient<paths>({
    baseUrl: base.endsWith('/api/v1') ? base : `${base}/api/v1`,
    headers: { ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}), ...options.headers },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

export { verifyWebhook, WebhookVerificationError, type DeliveryHeaders, type WebhookEvent } from './webhooks';
