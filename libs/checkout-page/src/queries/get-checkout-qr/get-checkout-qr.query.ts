import { Query } from '@nestjs/cqrs';

/** Which of a checkout's payment URIs: the whole quote, or what is still due on it (awaiting_customer). */
export type QrPart = 'quote' | 'remaining';

/** GET {checkout_url}/<code>/qr.svg?s=<checkout_id>[&part=remaining]: the QR code of that checkout's own payment URI, as SVG. */
export class GetCheckoutQrQuery extends Query<string> {
  constructor(
    readonly code: string,
    readonly checkoutId: string,
    readonly part: QrPart,
  ) {
    super();
  }
}
