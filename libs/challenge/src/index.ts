export * from './verifier';
export * from './used-tokens';
export * from './test-verifier';
export * from './turnstile-verifier';
export * from './create-verifier';
export * from './challenge.guard';
export * from './challenge.module';
