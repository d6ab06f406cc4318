/** The Redis server the tests use; CI and this machine run one at 127.0.0.1:6379. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
