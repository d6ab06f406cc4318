export * from './registry';
export * from './watch';
export * from './evm';
