export * from './get-business/get-business.handler';
export * from './get-business/get-business.query';
export * from './get-checkout-settings/get-checkout-settings.handler';
export * from './get-checkout-settings/get-checkout-settings.query';
export * from './list-api-keys/list-api-keys.handler';
export * from './list-api-keys/list-api-keys.query';
