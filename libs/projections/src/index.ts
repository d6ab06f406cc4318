export * from './projector';
export * from './checkpoints';
export * from './projection-runner';
export * from './subscriber';
export * from './reactor';
export * from './rebuild';
export * from './read-cache';
export { streamCatalog, streamCatalogProjector } from './stream-catalog.projector';
