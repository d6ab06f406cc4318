import { CONFIG_VARIABLES, ConfigError, TURNSTILE_SITEVERIFY_URL, loadConfig } from '@lib/core';

/** SMTP_URL, MAIL_FROM, CHALLENGE_PROVIDER, TURNSTILE_* (decision 0032), checked at start like every variable. */
describe('mail and bot-challenge configuration', () => {
  const load = (env: NodeJS.ProcessEnv) => loadConfig({ DATA_DIR: '/tmp/unused', ...env }, []);
  const shared = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

  it('lists the variables', () => {
    expect(CONFIG_VARIABLES).toEqual(expect.arrayContaining(['SMTP_URL', 'MAIL_FROM', 'CHALLENGE_PROVIDER', 'TURNSTILE_SECRET_KEY', 'TURNSTILE_VERIFY_URL']));
  });

  it('no SMTP_URL by default; smtp:// or smtps:// with MAIL_FROM; the URL never in the error', () => {
    expect(load({})).toMatchObject({ smtpUrl: null, mailFrom: 'Payments <no-reply@localhost>' });
    expect(load({ SMTP_URL: 'smtps://u:p@mail.example.com:465', MAIL_FROM: 'Shop <no-reply@example.com>' })).toMatchObject({ smtpUrl: 'smtps://u:p@mail.example.com:465', mailFrom: 'Shop <no-reply@example.com>' });
    expect(() => load({ SMTP_URL: 'smtp://u:p@mail.example.com' })).toThrow(new ConfigError('MAIL_FROM is required with SMTP_URL: the address every e-mail is sent from'));
    expect(() => load({ SMTP_URL: 'http://u:hunter2@mail.example.com', MAIL_FROM: 'a@b.c' })).toThrow(new ConfigError('SMTP_URL must start with smtp:// or smtps://'));
    expect(() => load({ SMTP_URL: 'smtp://u:hunter2@[bad', MAIL_FROM: 'a@b.c' })).toThrow(new ConfigError('SMTP_URL is not a valid URL'));
  });

  it('MAIL_FROM is an address or a name and an address, on one line', () => {
    expect(load({ MAIL_FROM: 'no-reply@example.com' }).mailFrom).toBe('no-reply@example.com');
    for (const bad of ['no-reply', 'Shop no-reply@example.com', 'Shop <no-reply@example.com>\r\nBcc: x@y.z', '<>', 'a@b c']) {
      expect(() => load({ MAIL_FROM: bad })).toThrow(ConfigError);
    }
  });

  it('CHALLENGE_PROVIDER: test by default with the embedded store, none with a shared store, turnstile needs its secret', () => {
    expect(load({})).toMatchObject({ challengeProvider: 'test', turnstileSecretKey: null, turnstileVerifyUrl: TURNSTILE_SITEVERIFY_URL });
    expect(load(shared).challengeProvider).toBeNull();
    expect(load({ ...shared, CHALLENGE_PROVIDER: 'test' }).challengeProvider).toBe('test');
    expect(load({ ...shared, CHALLENGE_PROVIDER: 'Turnstile', TURNSTILE_SECRET_KEY: 's3cr3t', TURNSTILE_VERIFY_URL: 'http://127.0.0.1:9/siteverify' })).toMatchObject({
      challengeProvider: 'turnstile',
      turnstileSecretKey: 's3cr3t',
      turnstileVerifyUrl: 'http://127.0.0.1:9/siteverify',
    });
    expect(() => load({ CHALLENGE_PROVIDER: 'turnstile' })).toThrow(new ConfigError('TURNSTILE_SECRET_KEY is required with CHALLENGE_PROVIDER=turnstile'));
    expect(() => load({ CHALLENGE_PROVIDER: 'recaptcha' })).toThrow(new ConfigError('CHALLENGE_PROVIDER must be turnstile or test, got "recaptcha"'));
    expect(() => load({ TURNSTILE_VERIFY_URL: 'ftp://x' })).toThrow(new ConfigError('TURNSTILE_VERIFY_URL must start with http:// or https://'));
  });
});
