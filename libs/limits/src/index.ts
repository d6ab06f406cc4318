export * from './create-limit-store';
export * from './emailed-codes';
export * from './limit-store';
export * from './limits.module';
export * from './people-limits';
export * from './policies';
export * from './redis-limit-store';
export * from './sql-limit-store';
