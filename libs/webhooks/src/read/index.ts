export * from './business-events.source';
export * from './endpoints.projector';
export * from './event-queries';
export * from './event-source';
export * from './events.projector';
export * from './views';
