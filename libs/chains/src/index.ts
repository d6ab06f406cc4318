export * from './registry';
export * from './watch';
export * from './bitcoin';
export * from './evm';
export * from './solana';
