export * from './get-business/get-business.handler';
export * from './get-business/get-business.query';
