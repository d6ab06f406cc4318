export * from './delivery-store';
export * from './dispatcher';
export * from './http-sender';
export * from './retry-schedule';
export * from './signing';
export * from './url-policy';
export * from './webhook-dispatcher.module';
