export * from './errors';
export * from './decider';
export * from './fields';
