import { Controller, Get, HttpCode, Module, Post } from '@nestjs/common';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { CHALLENGE_VERIFIER, ChallengeVerifier, RequiresChallenge, TestChallengeVerifier, TurnstileVerifier, testChallengeToken } from '@lib/challenge';
import { Public } from '../../apps/api/src/auth/auth.decorators';
import { TestApi, startTestApi } from '../support/api-app';
import { createTestDatabase } from '../support/postgres';
import { TEST_TURNSTILE_SECRET, TurnstileStandIn, startTurnstileStandIn } from '../support/turnstile';

/** A test-only controller: the real routes (sign-up, sign-in, password reset) come with the accounts work. */
@Public()
@Controller('challenge-probe')
class ChallengeProbeController {
  @Post('sign-in')
  @HttpCode(200)
  @RequiresChallenge('sign_in')
  signIn() {
    return { data: { form: 'sign_in' } };
  }

  @Post('sign-up')
  @HttpCode(200)
  @RequiresChallenge('sign_up')
  signUp() {
    return { data: { form: 'sign_up' } };
  }

  @Get('open')
  open() {
    return { data: { form: null } };
  }
}
@Module({ controllers: [ChallengeProbeController] })
class ChallengeProbeModule {}

interface Answer {
  status: number;
  body: { data?: unknown; error?: { code: string; message: string; field: string | null; request_id: string } };
  headers: Headers;
}

async function call(api: TestApi, method: 'GET' | 'POST', path: string, challenge?: string): Promise<Answer> {
  const response = await fetch(`${api.base}/challenge-probe/${path}`, { method, headers: challenge === undefined ? {} : { 'service-challenge': challenge } });
  return { status: response.status, body: (await response.json()) as Answer['body'], headers: response.headers };
}

function expectChallengeFailed(answer: Answer): void {
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual({ error: { code: 'challenge_failed', message: expect.any(String), field: 'Service-Challenge', request_id: expect.stringMatching(/^req_/) } });
  expect(answer.headers.get('service-request-id')).toBe(answer.body.error!.request_id);
}

/** Two Service-Challenge headers on the wire (fetch would join them first); Node joins them with a comma, which no token has. */
function twoHeaders(api: TestApi, a: string, b: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: api.port, method: 'POST', path: '/api/v1/challenge-probe/sign-in', headers: { 'Service-Challenge': [a, b], 'content-length': '0' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('@RequiresChallenge over HTTP, the embedded default (test verifier)', () => {
  let api: TestApi;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    api = await startTestApi({}, [ChallengeProbeModule], sink);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('the app provides the test verifier', () => {
    expect(api.app.get<ChallengeVerifier>(CHALLENGE_VERIFIER)).toBeInstanceOf(TestChallengeVerifier);
    expect(lines.join('')).toContain('bot challenges are checked by the test verifier');
  });

  it('no Service-Challenge → 400 challenge_failed in the error envelope; a route without the decorator needs none', async () => {
    expectChallengeFailed(await call(api, 'POST', 'sign-in'));
    expectChallengeFailed(await call(api, 'POST', 'sign-in', ''));
    expect(await call(api, 'GET', 'open')).toMatchObject({ status: 200, body: { data: { form: null } } });
  });

  it('a passed token lets the request through once; the same token again is refused', async () => {
    const token = testChallengeToken('sign_in');
    expect(await call(api, 'POST', 'sign-in', token)).toMatchObject({ status: 200, body: { data: { form: 'sign_in' } } });
    const again = await call(api, 'POST', 'sign-in', token);
    expectChallengeFailed(again);
    expect(again.body.error!.message).toMatch(/already used/);
    expect(lines.join('')).not.toContain(token);
  });

  it('a token from another form is refused, and still good for its own', async () => {
    const token = testChallengeToken('sign_up');
    const wrong = await call(api, 'POST', 'sign-in', token);
    expectChallengeFailed(wrong);
    expect(wrong.body.error!.message).toMatch(/another form/);
    expect(await call(api, 'POST', 'sign-up', token)).toMatchObject({ status: 200, body: { data: { form: 'sign_up' } } });
  });

  it('a refused token and two Service-Challenge headers fail', async () => {
    expectChallengeFailed(await call(api, 'POST', 'sign-in', 'test_fail.sign_in.abcdefgh'));
    const both = await twoHeaders(api, testChallengeToken('sign_in'), testChallengeToken('sign_in'));
    expect(both.status).toBe(400);
    expect(JSON.parse(both.body).error).toMatchObject({ code: 'challenge_failed', field: 'Service-Challenge' });
  });

  it('the OpenAPI document gives the route its Service-Challenge header and challenge_failed', async () => {
    const doc = (await (await fetch(`${api.base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string; required: boolean }[]; responses: Record<string, { 'x-error-codes'?: string[] }>; 'x-challenge'?: string }>>;
    };
    const op = doc.paths['/challenge-probe/sign-in'].post;
    expect(op['x-challenge']).toBe('sign_in');
    expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'Service-Challenge', in: 'header', required: true }));
    expect(op.responses['400']['x-error-codes']).toContain('challenge_failed');
    expect(doc.paths['/challenge-probe/open'].get['x-challenge']).toBeUndefined();
  });
});

describe('@RequiresChallenge over HTTP, two processes on one PostgreSQL', () => {
  it('a token used on one replica is refused by the other', async () => {
    const database = await createTestDatabase('chal');
    const env = { DATABASE_URL: database.url, CHALLENGE_PROVIDER: 'test' };
    const a = await startTestApi(env, [ChallengeProbeModule]);
    const b = await startTestApi(env, [ChallengeProbeModule]);
    try {
      const token = testChallengeToken('sign_in');
      expect((await call(a, 'POST', 'sign-in', token)).status).toBe(200);
      expectChallengeFailed(await call(b, 'POST', 'sign-in', token));
      const other = testChallengeToken('sign_in');
      expect((await call(b, 'POST', 'sign-in', other)).status).toBe(200);
      expectChallengeFailed(await call(a, 'POST', 'sign-in', other));
    } finally {
      await a.close();
      await b.close();
      await database.drop();
    }
  });
});

describe('@RequiresChallenge over HTTP with CHALLENGE_PROVIDER=turnstile', () => {
  let turnstile: TurnstileStandIn;
  let api: TestApi;
  beforeAll(async () => {
    turnstile = await startTurnstileStandIn();
    api = await startTestApi({ CHALLENGE_PROVIDER: 'turnstile', TURNSTILE_SECRET_KEY: TEST_TURNSTILE_SECRET, TURNSTILE_VERIFY_URL: turnstile.url }, [ChallengeProbeModule]);
  });
  afterAll(async () => {
    await api?.close();
    await turnstile?.close();
  });

  it('passes a solved sign_in token once, with the client address as remoteip; refuses one solved for sign-up', async () => {
    expect(api.app.get<ChallengeVerifier>(CHALLENGE_VERIFIER)).toBeInstanceOf(TurnstileVerifier);
    const token = turnstile.issue('sign_in');
    expect((await call(api, 'POST', 'sign-in', token)).status).toBe(200);
    expect(turnstile.requests.at(-1)!.fields).toMatchObject({ response: token, remoteip: '127.0.0.1' });
    expectChallengeFailed(await call(api, 'POST', 'sign-in', token));
    expectChallengeFailed(await call(api, 'POST', 'sign-in', turnstile.issue('sign_up')));
    // a test token means nothing to Turnstile
    expectChallengeFailed(await call(api, 'POST', 'sign-in', testChallengeToken('sign_in')));
  });

  it('siteverify failing → 400 challenge_failed (fail closed)', async () => {
    turnstile.fail(2, 503);
    expectChallengeFailed(await call(api, 'POST', 'sign-in', turnstile.issue('sign_in')));
  });
});
