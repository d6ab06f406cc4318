export * from './projector';
export * from './checkpoints';
export * from './projection-runner';
export * from './rebuild';
export { streamCatalog, streamCatalogProjector } from './stream-catalog.projector';
