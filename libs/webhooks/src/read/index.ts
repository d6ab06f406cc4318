export * from './business-events.source';
export * from './delivery-queries';
export * from './endpoint-queries';
export * from './endpoints.projector';
export * from './event-queries';
export * from './event-source';
export * from './events.projector';
export * from './views';
