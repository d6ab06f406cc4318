export * from './errors';
export * from './shared';
export * from './checkout.events';
export * from './checkout.decider';
export * from './payment.events';
export * from './payment.decider';
export * from './timeline';
export * from './checkout-to-payment';
