export * from './processor.port';
export * from './relay';
export * from './routes';
export * from './test-cards';
export * from './simulated-processor';
export * from './simulated-pages';
export * from './cards.module';
export * from './countries';
