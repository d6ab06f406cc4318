export * from './config';
export * from './core.module';
export * from './heartbeats';
export * from './rendering-settings';
export * from './startup-failure';
