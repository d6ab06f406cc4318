import { CONFIG_VARIABLES, ConfigError, loadConfig } from '@lib/core';

/** READ_CACHE_MB and READ_CACHE_MAX_AGE_SECONDS (decision 0019, second addendum), checked at start like every variable. */
describe('kept list pages configuration', () => {
  const load = (env: NodeJS.ProcessEnv) => loadConfig({ DATA_DIR: '/tmp/unused', ...env }, []);

  it('keeps 8 MB of pages for at most 10 s by default; 0 keeps none', () => {
    expect(load({})).toMatchObject({ readCacheMb: 8, readCacheMaxAgeMs: 10_000 });
    expect(load({ READ_CACHE_MB: '0' }).readCacheMb).toBe(0);
    expect(load({ READ_CACHE_MB: '1024', READ_CACHE_MAX_AGE_SECONDS: '3600' })).toMatchObject({ readCacheMb: 1024, readCacheMaxAgeMs: 3_600_000 });
    expect(CONFIG_VARIABLES).toEqual(expect.arrayContaining(['READ_CACHE_MB', 'READ_CACHE_MAX_AGE_SECONDS']));
  });

  it('refuses what is not a whole number in range', () => {
    for (const bad of ['-1', '1025', '1.5', '8mb']) {
      expect(() => load({ READ_CACHE_MB: bad })).toThrow(new ConfigError(`READ_CACHE_MB must be an integer from 0 to 1024, got ${JSON.stringify(bad)}`));
    }
    for (const bad of ['0', '3601', 'ten']) {
      expect(() => load({ READ_CACHE_MAX_AGE_SECONDS: bad })).toThrow(new ConfigError(`READ_CACHE_MAX_AGE_SECONDS must be an integer from 1 to 3600, got ${JSON.stringify(bad)}`));
    }
  });

  it('lets an api replica catch its projections up after 1 s of waiting by default; off, or 0 to 4000 ms', () => {
    expect(load({}).projectionCatchUpMs).toBe(1000);
    expect(load({ PROJECTION_CATCH_UP_MS: 'off' }).projectionCatchUpMs).toBeNull();
    expect(load({ PROJECTION_CATCH_UP_MS: '0' }).projectionCatchUpMs).toBe(0);
    expect(CONFIG_VARIABLES).toContain('PROJECTION_CATCH_UP_MS');
    for (const bad of ['-1', '4001', '1.5', 'no']) {
      expect(() => load({ PROJECTION_CATCH_UP_MS: bad })).toThrow(new ConfigError(`PROJECTION_CATCH_UP_MS must be off or an integer from 0 to 4000, got ${JSON.stringify(bad)}`));
    }
  });
});
