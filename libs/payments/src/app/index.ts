export * from './customers';
export * from './simulated-chain';
export * from './payment-timers';
export * from './streams';
export * from './payments.app';
