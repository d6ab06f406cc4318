export * from './pauses';
export * from './operations.module';
