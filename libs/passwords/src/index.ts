export * from './breach';
export * from './hashing';
export * from './password.service';
export * from './passwords.module';
export * from './policy';
