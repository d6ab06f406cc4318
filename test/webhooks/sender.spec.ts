import { Webhook } from 'standardwebhooks';
import { ResolvedAddress, Resolver, WebhookSender, mintSecret, secretHint, signPayload } from '../../libs/webhooks/src';
import { Receiver, startReceiver } from './support';

describe('Standard Webhooks signatures', () => {
  it('reproduces the Standard Webhooks specification test vector', () => {
    const headers = signPayload(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 'msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330 * 1000), '{"test": 2432232314}');
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
    // and the reference verifier accepts it (at the vector's own time)
    const now = jest.spyOn(Date, 'now').mockReturnValue(1614265330 * 1000 + 10_000);
    try {
      expect(new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').verify('{"test": 2432232314}', headers as unknown as Record<string, string>)).toEqual({ test: 2432232314 });
    } finally {
      now.mockRestore();
    }
  });

  it('mints whsec_ secrets of 32 random bytes and masks them as prefix, dots and the last 4 characters', () => {
    const secret = mintSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(mintSecret()).not.toBe(secret);
    expect(secretHint(secret)).toBe(`whsec_••••${secret.slice(-4)}`); // the secret's own end, padding included
    expect(secretHint(secret)).not.toContain(secret.slice(6, 20));
  });

  it('signs with every secret given, space-separated, so either secret verifies (rotation grace period)', () => {
    const [current, previous] = [mintSecret(), mintSecret()];
    const body = JSON.stringify({ id: 'evt_1', type: 'payment.succeeded' });
    const headers = signPayload([current, previous], 'evt_1', new Date(), body) as unknown as Record<string, string>;
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]{44} v1,[A-Za-z0-9+/=]{44}$/);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(mintSecret()).verify(body, headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(current).verify(body.replace('evt_1', 'evt_2'), headers)).toThrow();
  });
});

describe('WebhookSender against a real receiver', () => {
  let receiver: Receiver;
  const secret = mintSecret();
  const body = JSON.stringify({ id: 'evt_abc', kind: 'event', type: 'payment.succeeded', data: { amount: 100 } });
  const dev = (options: Partial<ConstructorParameters<typeof WebhookSender>[0]> = {}) => new WebhookSender({ allowPrivateUrls: true, ...options });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => receiver.close());

  it('POSTs the exact body with content-type and the three webhook headers, verifiable with the standardwebhooks library', async () => {
    const result = await dev().send({ url: `${receiver.url}?tenant=1`, eventId: 'evt_abc', body, secrets: [secret] });
    expect(result).toMatchObject({ ok: true, responseStatus: 200, error: null, address: '127.0.0.1' });
    const [request] = receiver.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hooks?tenant=1');
    expect(request.body).toBe(body);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toBe('evt_abc');
    expect(request.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toEqual(JSON.parse(body));
    // what is recorded is what was sent, and never the secret
    expect(result.requestHeaders).toEqual({
      'content-type': 'application/json',
      'user-agent': expect.any(String),
      'webhook-id': 'evt_abc',
      'webhook-timestamp': request.headers['webhook-timestamp'],
      'webhook-signature': request.headers['webhook-signature'],
    });
    expect(JSON.stringify(result)).not.toContain(secret.slice(6));
  });

  it('counts only 2xx as success; a 3xx is a failure and is not followed', async () => {
    const target = await startReceiver();
    try {
      receiver.respond = (_r, i) => [{ status: 204 }, { status: 500 }, { status: 302, headers: { location: target.url } }, { status: 404 }][i];
      const send = () => dev().send({ url: receiver.url, eventId: 'evt_abc', body, secrets: [secret] });
      expect(await send()).toMatchObject({ ok: true, responseStatus: 204, error: null });
      expect(await send()).toMatchObject({ ok: false, responseStatus: 500, error: 'HTTP 500' });
      expect(await send()).toMatchObject({ ok: false, responseStatus: 302, error: 'redirect (302) not followed' });
      expect(await send()).toMatchObject({ ok: false, responseStatus: 404 });
      expect(target.requests).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  it('gives up after the timeout (15 s by default) and reports it', async () => {
    receiver.respond = () => ({ status: 200, hang: true });
    const started = Date.now();
    const result = await dev({ timeoutMs: 300 }).send({ url: receiver.url, eventId: 'evt_abc', body, secrets: [secret] });
    expect(result).toMatchObject({ ok: false, responseStatus: null, error: expect.stringMatching(/^timeout/) });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(new WebhookSender({ allowPrivateUrls: false })['timeoutMs']).toBe(15_000);
  });

  it('reports a refused connection', async () => {
    const port = receiver.port;
    await receiver.close();
    const result = await dev().send({ url: `http://127.0.0.1:${port}/hooks`, eventId: 'evt_abc', body, secrets: [secret] });
    expect(result).toMatchObject({ ok: false, responseStatus: null, error: 'connection failed: ECONNREFUSED' });
    receiver = await startReceiver();
  });

  describe('at connect time (DNS through an injected resolver)', () => {
    const resolverOf = (answers: (string[] | Error)[]) => {
      const calls: string[] = [];
      const resolver: Resolver = async (host) => {
        calls.push(host);
        const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
        if (answer instanceof Error) throw answer;
        return answer.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
      };
      return { resolver, calls };
    };

    it('refuses a public-looking name that resolves to a private or loopback address, without connecting', async () => {
      for (const answer of [['127.0.0.1'], ['10.0.0.7'], ['169.254.169.254'], ['::1'], ['::ffff:127.0.0.1'], ['fd00::2'], ['0.0.0.0']]) {
        const { resolver } = resolverOf([answer]);
        const result = await new WebhookSender({ allowPrivateUrls: false, resolver }).send({ url: 'https://hooks.example.com/in', eventId: 'evt_abc', body, secrets: [secret] });
        expect({ answer, ok: result.ok, error: result.error, address: result.address }).toEqual({
          answer,
          ok: false,
          error: expect.stringMatching(/^address refused: hooks\.example\.com resolves to /),
          address: null,
        });
      }
      expect(receiver.requests).toHaveLength(0);
    });

    it('checks every address: one private answer among public ones refuses the attempt', async () => {
      const { resolver } = resolverOf([['93.184.216.34', '2606:2800:220:1::1', '127.0.0.1']]);
      const result = await new WebhookSender({ allowPrivateUrls: false, resolver }).send({ url: 'https://hooks.example.com/in', eventId: 'evt_abc', body, secrets: [secret] });
      expect(result.error).toMatch(/address refused: hooks\.example\.com resolves to 127\.0\.0\.1 is a loopback address/);
    });

    it('resolves once and connects to the address it checked (DNS rebinding cannot switch it)', async () => {
      // first answer: our receiver's loopback address; every later answer: somewhere else
      const { resolver, calls } = resolverOf([['127.0.0.1'], ['10.66.66.66']]);
      const result = await dev({ resolver }).send({ url: `http://hooks.example.com:${receiver.port}/in`, eventId: 'evt_abc', body, secrets: [secret] });
      expect(result).toMatchObject({ ok: true, responseStatus: 200, address: '127.0.0.1' });
      expect(calls).toEqual(['hooks.example.com']);
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0].headers.host).toBe(`hooks.example.com:${receiver.port}`);
    });

    it('a name that answered a public address then rebinds to loopback still goes to the public address', async () => {
      const { resolver, calls } = resolverOf([['93.184.216.34'], ['127.0.0.1']]);
      const result = await new WebhookSender({ allowPrivateUrls: false, resolver, timeoutMs: 1000 }).send({
        url: `https://rebind.example.com:${receiver.port}/in`,
        eventId: 'evt_abc',
        body,
        secrets: [secret],
      });
      expect(calls).toEqual(['rebind.example.com']);
      expect(result.address).toBe('93.184.216.34');
      expect(result.ok).toBe(false); // no route from here to the internet (or no TLS there): anything but our receiver
      expect(result.error).not.toMatch(/address refused/);
      expect(receiver.requests).toHaveLength(0);
    });

    it('reports resolution failures', async () => {
      const { resolver } = resolverOf([Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })]);
      const result = await dev({ resolver }).send({ url: 'https://nowhere.example.com/in', eventId: 'evt_abc', body, secrets: [secret] });
      expect(result).toMatchObject({ ok: false, error: 'dns: ENOTFOUND', address: null });
      const { resolver: empty } = resolverOf([[]]);
      expect((await dev({ resolver: empty }).send({ url: 'https://nowhere.example.com/in', eventId: 'e', body, secrets: [secret] })).error).toMatch(/no address/);
    });

    it('refuses URLs the policy refuses before resolving anything', async () => {
      const { resolver, calls } = resolverOf([['93.184.216.34']]);
      const strict = new WebhookSender({ allowPrivateUrls: false, resolver });
      for (const url of [receiver.url, 'https://localhost/x', 'https://[::1]/x', 'https://user:pw@hooks.example.com/x']) {
        expect((await strict.send({ url, eventId: 'e', body, secrets: [secret] })).error).toMatch(/^url refused: /);
      }
      expect(calls).toEqual([]);
      expect(receiver.requests).toHaveLength(0);
    });
  });
});
