export * from './config';
export * from './core.module';
export * from './rendering-settings';
export * from './startup-failure';
