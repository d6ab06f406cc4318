export * from './config';
export * from './core.module';
export * from './rendering-settings';
