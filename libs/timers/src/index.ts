export * from './clock';
export * from './timer-store';
export * from './timer-runner';
