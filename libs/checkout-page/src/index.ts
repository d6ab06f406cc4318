/**
 * The hosted checkout page customers pay on (decision 0027): server-rendered HTML, one
 * first-party script and stylesheet, a QR code of each checkout's own payment URI, a receipt
 * page; the script calls the public API routes only.
 */
export * from './availability';
export * from './checkout-page.module';
export * from './page-codes';
export * from './page-model';
export * from './page-routes';
export * from './queries/get-checkout-page/get-checkout-page.query';
export * from './queries/get-checkout-page/get-checkout-page.handler';
export * from './queries/get-checkout-qr/get-checkout-qr.query';
export * from './queries/get-checkout-qr/get-checkout-qr.handler';
export * from './queries/get-page-receipt/get-page-receipt.query';
export * from './queries/get-page-receipt/get-page-receipt.handler';
export * from './render/checkout-page.html';
export * from './render/format';
export * from './render/html';
export * from './render/receipt.html';
export * from './render/view';
export * from './page-assets';
