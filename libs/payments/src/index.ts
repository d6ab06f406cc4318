export * from './domain';
export * from './app';
export * from './commands';
export * from './queries';
export * from './read';
export * from './payments.module';
export * from './payments-reactor';
export * from './chain-watching';
