import { CONFIG_VARIABLES, ConfigError, loadConfig } from '@lib/core';

/** RATES_URL and RATES_MAX_AGE_SECONDS (decision 0020), checked at start like every variable. */
describe('rates configuration', () => {
  const load = (env: NodeJS.ProcessEnv) => loadConfig({ DATA_DIR: '/tmp/unused', ...env }, []);

  it('defaults to Coinbase Exchange with a 60 s freshness bound', () => {
    expect(load({})).toMatchObject({ ratesUrl: 'https://api.exchange.coinbase.com', ratesMaxAgeMs: 60_000 });
    expect(CONFIG_VARIABLES).toEqual(expect.arrayContaining(['RATES_URL', 'RATES_MAX_AGE_SECONDS']));
  });

  it('takes another http(s) source (trailing slash dropped), or off for none', () => {
    expect(load({ RATES_URL: 'http://127.0.0.1:9999/exchange/' }).ratesUrl).toBe('http://127.0.0.1:9999/exchange');
    expect(load({ RATES_URL: 'off' }).ratesUrl).toBeNull();
    expect(load({ RATES_URL: 'OFF' }).ratesUrl).toBeNull();
    expect(load({ RATES_URL: '' }).ratesUrl).toBe('https://api.exchange.coinbase.com');
    expect(() => load({ RATES_URL: 'ftp://example.com' })).toThrow(new ConfigError('RATES_URL must start with http:// or https://'));
    expect(() => load({ RATES_URL: 'not a url' })).toThrow(ConfigError);
  });

  it('RATES_MAX_AGE_SECONDS is a whole number of seconds from 1 to 3600', () => {
    expect(load({ RATES_MAX_AGE_SECONDS: '5' }).ratesMaxAgeMs).toBe(5_000);
    expect(load({ RATES_MAX_AGE_SECONDS: '3600' }).ratesMaxAgeMs).toBe(3_600_000);
    for (const bad of ['0', '3601', '1.5', '-1', '60s', ' 60']) {
      expect(() => load({ RATES_MAX_AGE_SECONDS: bad })).toThrow(new ConfigError(`RATES_MAX_AGE_SECONDS must be an integer from 1 to 3600, got ${JSON.stringify(bad)}`));
    }
  });
});
