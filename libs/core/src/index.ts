export * from './config';
export * from './core.module';
