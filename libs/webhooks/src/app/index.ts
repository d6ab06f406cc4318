export * from './delivery.service';
export * from './endpoint.service';
export * from './secret-store';
