export * from './clock';
export * from './poll-loop';
export * from './timer-store';
export * from './timer-runner';
