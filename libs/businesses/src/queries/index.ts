export * from './get-business/get-business.handler';
export * from './get-business/get-business.query';
export * from './get-checkout-settings/get-checkout-settings.handler';
export * from './get-checkout-settings/get-checkout-settings.query';
export * from './get-referral/get-referral.handler';
export * from './get-referral/get-referral.query';
export * from './has-received-funds/has-received-funds.handler';
export * from './has-received-funds/has-received-funds.query';
