export * from './event-store.port';
export * from './errors';
export * from './position';
export * from './open-event-store';
export { SqlEventStore } from './sql/sql-event-store';
export * from './write-meta';
export * from './command-runner';
export * from './stream-category';
export * from './read-stream';
