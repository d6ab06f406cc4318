import { RenderingSettings, differenceWarning, differingSettings, renderingFor } from '@lib/core';
import { cli } from '../support/cli';
import { businessWithKey, startTestApi, testStorage } from '../support/fixtures';

/**
 * The settings every process of the service must share (operator audit 2026-11-29, F1): a worker
 * started without the API's CHECKOUT_BASE_URL rendered event payloads and webhooks with its own
 * localhost default, recorded it as the service's (last starter wins), and `projections verify`
 * then flagged all history and advised a rebuild that would rewrite it with the wrong host.
 */
describe('service settings: comparison and the CLI rendering choice', () => {
  const api: RenderingSettings = { checkoutBaseUrl: 'https://pay.example.test/checkout', apiBaseUrl: 'https://api.example.test', webhookAllowPrivateUrls: false, role: 'api' };

  it('names each differing setting, values without credentials; nothing when nothing was recorded or all agree', () => {
    expect(differingSettings(null, api)).toEqual([]);
    expect(differingSettings(api, { ...api, role: 'worker' })).toEqual([]);
    const worker = { checkoutBaseUrl: 'http://localhost:3000/checkout', apiBaseUrl: 'https://user:hunter2@api.example.test', webhookAllowPrivateUrls: true, role: 'worker' };
    const differences = differingSettings(api, worker);
    expect(differences).toEqual([
      { variable: 'CHECKOUT_BASE_URL', recorded: 'https://pay.example.test/checkout', own: 'http://localhost:3000/checkout' },
      { variable: 'API_BASE_URL', recorded: 'https://api.example.test', own: 'https://api.example.test/' },
      { variable: 'WEBHOOK_ALLOW_PRIVATE_URLS', recorded: 'false', own: 'true' },
    ]);
    const warning = differenceWarning(differences[0], 'api');
    expect(warning).toContain('CHECKOUT_BASE_URL of this process (http://localhost:3000/checkout) differs from the service');
    expect(warning).toContain('https://pay.example.test/checkout, recorded by a process with ROLE=api');
    expect(JSON.stringify(differences)).not.toContain('hunter2');
    // what an earlier version recorded (CHECKOUT_BASE_URL only) is compared on that only
    expect(differingSettings({ checkoutBaseUrl: api.checkoutBaseUrl }, worker).map((d) => d.variable)).toEqual(['CHECKOUT_BASE_URL']);
  });

  it('the CLI renders with the recorded value, its own only when equal, and refuses otherwise', () => {
    const own = (checkoutBaseUrl: string, named: boolean) => ({ checkoutBaseUrl, named });
    expect(renderingFor(null, own('http://localhost:3000/checkout', false))).toEqual({ checkoutBaseUrl: 'http://localhost:3000/checkout', note: null });
    expect(renderingFor(api, own('http://localhost:3000/checkout', false))).toEqual({ checkoutBaseUrl: api.checkoutBaseUrl, note: expect.stringContaining('recorded CHECKOUT_BASE_URL https://pay.example.test/checkout') });
    expect(renderingFor(api, own(api.checkoutBaseUrl, true))).toEqual({ checkoutBaseUrl: api.checkoutBaseUrl, note: null });
    const differs = renderingFor(api, own('http://localhost:4000/checkout', true));
    expect(differs).toEqual({ refusal: expect.stringContaining("CHECKOUT_BASE_URL of this CLI (http://localhost:4000/checkout) differs from the service's (https://pay.example.test/checkout)") });
    // the service's processes disagreed: no guess, the operator names the value (which must be the recorded one)
    const disagreed = { ...api, checkoutBaseUrl: 'http://localhost:3000/checkout', replacedCheckoutBaseUrl: api.checkoutBaseUrl };
    expect(renderingFor(disagreed, own('http://localhost:3000/checkout', false))).toEqual({ refusal: expect.stringContaining('started with different CHECKOUT_BASE_URL values') });
    expect(renderingFor(disagreed, own('http://localhost:3000/checkout', true))).toEqual({ checkoutBaseUrl: 'http://localhost:3000/checkout', note: null });
  });

  it('on a store: a process started with other settings warns at start, and verify refuses instead of flagging all history', async () => {
    const storage = await testStorage('postgres', 'rset');
    const A = 'https://pay.example.test/checkout';
    const serviceEnv = { ...storage.env, CHECKOUT_BASE_URL: A, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
    const lines: string[] = [];
    const sink = { write: (line: string) => void lines.push(line) };
    const warnings = () => lines.map((l) => JSON.parse(l) as { level: string; msg: string; context?: string }).filter((l) => l.level === 'warn' && l.context === 'Settings').map((l) => l.msg);
    try {
      const first = await startTestApi(serviceEnv);
      try {
        const { client } = await businessWithKey(first, true);
        expect((await client.createPayment()).url).toContain(A);
      } finally {
        await first.close();
      }
      // the CLI names no value: the recorded one, OK; a CLI with another value is refused (exit 2), not a "DIFFERENT, rebuild"
      const plain = await cli(['projections', 'verify', 'events'], storage.env);
      expect({ code: plain.code, out: plain.stdout }).toEqual({ code: 0, out: expect.stringContaining('events: OK') });
      const other = await cli(['projections', 'verify', 'events'], { ...storage.env, CHECKOUT_BASE_URL: 'http://localhost:4000/checkout' });
      expect(other.code).toBe(2);
      expect(other.stdout).toBe('');
      expect(other.stderr).toContain(`configuration error: CHECKOUT_BASE_URL of this CLI (http://localhost:4000/checkout) differs from the service's (${A})`);
      expect((await cli(['projections', 'rebuild', 'events'], { ...storage.env, CHECKOUT_BASE_URL: 'http://localhost:4000/checkout' })).code).toBe(2);

      // a process started as the README's worker line used to be (no public addresses): it says so at start
      const stray = await startTestApi(storage.env, [], sink);
      await stray.close();
      expect(warnings()).toEqual(
        expect.arrayContaining([
          expect.stringContaining(`CHECKOUT_BASE_URL of this process (http://localhost:3000/checkout) differs from the service's (${A}, recorded by a process with ROLE=all)`),
          expect.stringContaining("WEBHOOK_ALLOW_PRIVATE_URLS of this process (false) differs from the service's (true"),
        ]),
      );
      expect(warnings()).toHaveLength(2); // API_BASE_URL is unset in both
      // never a secret: not the store's URL (its password), not the wallet key
      for (const secret of [storage.env.DATABASE_URL, process.env.WALLET_KEK].filter(Boolean) as string[]) expect(warnings().join('\n')).not.toContain(secret);
      // now the processes disagreed: verify refuses to guess (before: it rendered with the stray localhost value, flagged every event and advised a rebuild)
      const guessed = await cli(['projections', 'verify', 'events'], storage.env);
      expect(guessed.code).toBe(2);
      expect(guessed.stderr).toContain('started with different CHECKOUT_BASE_URL values');
      expect(guessed.stdout).not.toContain('rebuild');
      // every process restarted with the right value, and the CLI given it: verified OK
      const fixed = await startTestApi(serviceEnv);
      await fixed.close();
      const confirmed = await cli(['projections', 'verify', 'events'], { ...storage.env, CHECKOUT_BASE_URL: A });
      expect({ code: confirmed.code, out: confirmed.stdout }).toEqual({ code: 0, out: expect.stringContaining('events: OK') });
      expect(confirmed.stderr).not.toMatch(/configuration error|rendering with/);
    } finally {
      await storage.cleanup();
    }
  }, 120_000);
});
