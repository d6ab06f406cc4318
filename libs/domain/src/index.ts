export * from './errors';
export * from './decider';
