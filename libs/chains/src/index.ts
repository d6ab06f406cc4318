export * from './registry';
export * from './watch';
