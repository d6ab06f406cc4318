export * from './projector';
export * from './checkpoints';
export * from './projection-runner';
export * from './subscriber';
export * from './reactor';
export * from './rebuild';
export { streamCatalog, streamCatalogProjector } from './stream-catalog.projector';
