export * from './api-error';
export * from './error-filter';
export * from './ids';
export * from './json-body';
export * from './pagination';
export * from './route-table';
export * from './text-safety';
export * from './validation';
