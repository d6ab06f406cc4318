export * from './rules';
export * from './rate-limiter';
export * from './trusted-proxies';
