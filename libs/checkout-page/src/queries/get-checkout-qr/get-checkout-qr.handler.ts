import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { toString as qrSvg } from 'qrcode';
import { PageCodes } from '../../page-codes';
import { CHECKOUT_ID, CheckoutPageNotFound, PAYMENT_CODE } from '../../page-model';
import { GetCheckoutQrQuery } from './get-checkout-qr.query';

/** SVGs kept (a payment URI never changes; the page asks again on every poll that changes the view). */
const CACHE_SIZE = 500;

/**
 * The QR code of a checkout's own payment URI (`crypto.payment_uri`, or `remaining_payment_uri`
 * while the rest is due), rendered as SVG by `qrcode`. Only for a checkout of the payment the
 * code names, or of one of the link's payments (PageCodes): never a QR code of any text a caller sends. 404 when the checkout has no such URI.
 */
@QueryHandler(GetCheckoutQrQuery)
export class GetCheckoutQrHandler implements IQueryHandler<GetCheckoutQrQuery, string> {
  private readonly cache = new Map<string, string>();

  constructor(private readonly codes: PageCodes) {}

  async execute({ code, checkoutId, part }: GetCheckoutQrQuery): Promise<string> {
    if (!PAYMENT_CODE.test(code) || !CHECKOUT_ID.test(checkoutId)) throw new CheckoutPageNotFound('QR code');
    const checkout = (await this.codes.checkoutUnder(code, checkoutId))?.checkout;
    if (!checkout || checkout.crypto === null) throw new CheckoutPageNotFound('QR code');
    const uri = part === 'remaining' ? checkout.crypto.remaining_payment_uri : checkout.crypto.payment_uri;
    if (uri === null) throw new CheckoutPageNotFound('QR code');
    const cached = this.cache.get(uri);
    if (cached !== undefined) return cached;
    // medium error correction, the standard four-module quiet zone; the page sizes it with CSS
    const svg = await qrSvg(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 4, color: { dark: '#000000', light: '#ffffff' } });
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(uri, svg);
    return svg;
  }
}
