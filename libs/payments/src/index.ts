export * from './domain';
export * from './app';
export * from './read';
