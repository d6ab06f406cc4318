import { WEBHOOK_URL_MAX, checkAddress, checkWebhookUrl } from '../../libs/webhooks/src';
import { REFUSED_URLS } from './refused-urls';

const strict = { allowPrivate: false };
const dev = { allowPrivate: true };

describe('webhook URL policy (issue 5 point 6)', () => {
  it(`refuses ${REFUSED_URLS.length} URLs, each for the reason it should`, () => {
    expect(REFUSED_URLS.length).toBeGreaterThanOrEqual(30);
    for (const [url, reason] of REFUSED_URLS) {
      const checked = checkWebhookUrl(url, strict);
      if (checked.ok) throw new Error(`accepted ${url}`);
      expect({ url, reason: checked.reason }).toEqual({ url, reason: expect.stringMatching(reason) });
    }
  });

  it('accepts https URLs on public hosts and addresses, with ports, paths and queries', () => {
    for (const url of [
      'https://example.com/hooks',
      'https://hooks.example.co.uk:8443/a/b?x=1&y=2',
      'https://EXAMPLE.com./hooks',
      'https://8.8.8.8/hooks',
      'https://[2606:4700:4700::1111]/hooks',
      'https://[::ffff:8.8.8.8]/hooks',
      'https://xn--bcher-kva.example/hooks',
      'https://bücher.example/hooks',
      `https://example.com/${'a'.repeat(WEBHOOK_URL_MAX - 'https://example.com/'.length)}`,
    ]) {
      expect({ url, ok: checkWebhookUrl(url, strict).ok }).toEqual({ url, ok: true });
    }
  });

  it('reports the host and the IP literal the connection will use', () => {
    expect(checkWebhookUrl('https://Example.COM./x', strict)).toMatchObject({ ok: true, host: 'example.com', ip: null, port: 443 });
    expect(checkWebhookUrl('https://[::ffff:8.8.8.8]:444/x', strict)).toMatchObject({ ok: true, host: '8.8.8.8', ip: '8.8.8.8', port: 444 });
  });

  it('with WEBHOOK_ALLOW_PRIVATE_URLS allows http, localhost, single-label names, loopback and private addresses, nothing else', () => {
    for (const url of [
      'http://127.0.0.1:8080/hooks',
      'http://localhost:3000/hooks',
      'http://receiver:8080/hooks',
      'https://[::1]/hooks',
      'http://10.1.2.3/hooks',
      'http://192.168.0.10/hooks',
      'http://[fd00::1]/hooks',
      'http://printer.local/hooks',
    ]) {
      expect({ url, ok: checkWebhookUrl(url, dev).ok }).toEqual({ url, ok: true });
    }
    for (const url of [
      'https://169.254.169.254/latest/meta-data/',
      'http://0.0.0.0:8080/',
      'http://[::]/',
      'http://[fe80::1]/',
      'http://224.0.0.1/',
      'https://user:pw@127.0.0.1/',
      'ftp://127.0.0.1/',
      'http://site.invalid/',
    ]) {
      expect({ url, ok: checkWebhookUrl(url, dev).ok }).toEqual({ url, ok: false });
    }
  });

  it('checks resolved addresses the same way (what DNS answers at connect time)', () => {
    expect(checkAddress('93.184.216.34', strict)).toEqual({ ok: true, address: '93.184.216.34', family: 4 });
    expect(checkAddress('2606:4700::6810:84e5', strict)).toMatchObject({ ok: true, family: 6 });
    expect(checkAddress('::ffff:93.184.216.34', strict)).toEqual({ ok: true, address: '93.184.216.34', family: 4 });
    for (const address of ['127.0.0.1', '10.0.0.5', '172.20.0.1', '192.168.0.1', '100.100.100.100', '169.254.169.254', '0.0.0.0', '::1', '::ffff:127.0.0.1', 'fe80::1%eth0', 'fd00::1', 'ff05::2', '127.1', 'not-an-ip']) {
      expect({ address, ok: checkAddress(address, strict).ok }).toEqual({ address, ok: false });
    }
    expect(checkAddress('127.0.0.1', dev).ok).toBe(true);
    expect(checkAddress('169.254.169.254', dev).ok).toBe(false);
  });
});
