export * from './endpoint.decider';
export * from './endpoint.events';
export * from './errors';
export * from './event-types';
export * from './stream-categories';
