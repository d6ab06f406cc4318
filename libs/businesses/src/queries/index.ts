export * from './get-business/get-business.handler';
export * from './get-business/get-business.query';
export * from './get-checkout-settings/get-checkout-settings.handler';
export * from './get-checkout-settings/get-checkout-settings.query';
