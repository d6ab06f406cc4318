import { Controller, HttpCode, Module, Param, Post } from '@nestjs/common';
import { ApiError } from '@lib/http';
import { randomInt } from 'node:crypto';
import { CreatedBusiness } from '@lib/businesses';
import { Public } from '../../apps/api/src/auth/auth.decorators';
import { ApiErrors } from '../../apps/api/src/platform/openapi';
import { RateLimit } from '../../apps/api/src/platform/rate-limit.guard';
import { appPerSuite, businessWithKey, startTestApi } from '../support/fixtures';
import { TEST_REDIS_URL } from '../support/redis';

@Controller('probe-limits')
class LimitedController {
  @Public()
  @RateLimit('password_resets.create') // 5 per hour per IP
  @HttpCode(200)
  @Post('per-ip')
  perIp() {
    return { data: { ok: true } };
  }

  @RateLimit('webhooks.test_and_resend') // 10 per minute per business
  @HttpCode(200)
  @Post('per-business')
  perBusiness() {
    return { data: { ok: true } };
  }

  // the same rule (it counts only successful requests) on a route that answers as asked: a 2xx,
  // or one of the refusals a test event or a resend can meet
  @RateLimit('webhooks.test_and_resend')
  @ApiErrors('not_found', 'webhook_limit')
  @HttpCode(201)
  @Post('per-business/:answer')
  perBusinessAnswering(@Param('answer') answer: string) {
    if (answer === 'not-found') throw new ApiError('not_found', 'Nothing with that id for this business.');
    if (answer === 'invalid') throw new ApiError('invalid_request', 'Bad field.', 'field');
    if (answer === 'conflict') throw new ApiError('webhook_limit', 'A conflict.');
    if (answer === 'crash') throw new Error('boom');
    return { data: { sent: ++sent } };
  }
}
let sent = 0;
@Module({ controllers: [LimitedController] })
class LimitedModule {}

/** A fresh client address per test, so runs never share a budget in Redis. */
const randomIp = () => `198.51.${randomInt(0, 255)}.${randomInt(1, 254)}`;

const backends: [string, NodeJS.ProcessEnv][] = [
  ['memory', {}],
  ['Redis', { REDIS_URL: TEST_REDIS_URL }],
];

describe.each(backends)('rate limits (spec §8) in %s', (_name, env) => {
  const suite = appPerSuite(
    () => startTestApi({ ...env, TRUSTED_PROXIES: '127.0.0.1' }, [LimitedModule]),
    async (api) => ({
      shop: await businessWithKey(api, true, 'Shop', { contact: false }),
      other: await businessWithKey(api, true, 'Other', { contact: false }),
    }),
  );

  const post = (path: string, headers: Record<string, string>) => fetch(`${suite.api.base}${path}`, { method: 'POST', headers });

  it('limits per client IP (from X-Forwarded-For of a trusted proxy) with 429 rate_limited and Retry-After in whole seconds', async () => {
    const ip = randomIp();
    for (let i = 0; i < 5; i++) expect((await post('/probe-limits/per-ip', { 'x-forwarded-for': ip })).status).toBe(200);
    const refused = await post('/probe-limits/per-ip', { 'x-forwarded-for': ip });
    expect(refused.status).toBe(429);
    const retryAfter = refused.headers.get('retry-after')!;
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(3600);
    const body = (await refused.json()) as { error: { code: string; request_id: string } };
    expect(body.error.code).toBe('rate_limited');
    expect(refused.headers.get('service-request-id')).toBe(body.error.request_id);
    // another client is not affected
    expect((await post('/probe-limits/per-ip', { 'x-forwarded-for': randomIp() })).status).toBe(200);
  });

  it('a rule that counts only successful requests: errors and replays spend nothing, refusals hold nothing, successes are capped', async () => {
    const auth = (b: CreatedBusiness, more: Record<string, string> = {}) => ({ authorization: `Bearer ${b.secret_key}`, 'x-forwarded-for': randomIp(), ...more });
    const shop = await businessWithKey(suite.api, true, 'Counted', { contact: false });
    const statuses = async (path: string, n: number, headers = auth(shop)) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await post(path, headers)).status);
      return out;
    };
    // 404, 400, 409 and 500 answers are not test events or resends sent: none counts
    expect(await statuses('/probe-limits/per-business/not-found', 6)).toEqual([404, 404, 404, 404, 404, 404]);
    expect(await statuses('/probe-limits/per-business/invalid', 3)).toEqual([400, 400, 400]);
    expect(await statuses('/probe-limits/per-business/conflict', 3)).toEqual([409, 409, 409]);
    expect(await statuses('/probe-limits/per-business/crash', 2)).toEqual([500, 500]);
    // a success with an Idempotency-Key counts once; its replays send nothing again and count nothing
    const keyed = auth(shop, { 'idempotency-key': `k-${randomIp()}` });
    const original = await post('/probe-limits/per-business/ok', keyed);
    expect(original.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const replay = await post('/probe-limits/per-business/ok', keyed);
      expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    }
    // the same key on another path: 409 idempotency_key_reused, not counted either
    expect((await post('/probe-limits/per-business/other', keyed)).status).toBe(409);
    // so the whole budget of 10 is still there for what succeeds: 9 more
    expect(await statuses('/probe-limits/per-business/ok', 9)).toEqual(Array(9).fill(201));
    const refused = await post('/probe-limits/per-business/ok', auth(shop));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // past the budget every request of the rule is refused, failing ones too (the guard runs first)
    expect((await post('/probe-limits/per-business/not-found', auth(shop))).status).toBe(429);
    expect((await post('/probe-limits/per-business', auth(shop))).status).toBe(429); // one budget for the rule's routes
  });

  it('limits webhook tests and resends to 10 per minute per business', async () => {
    const auth = (b: CreatedBusiness) => ({ authorization: `Bearer ${b.secret_key}`, 'x-forwarded-for': randomIp() });
    for (let i = 0; i < 10; i++) expect((await post('/probe-limits/per-business', auth(suite.shop))).status).toBe(200);
    const refused = await post('/probe-limits/per-business', auth(suite.shop)); // from yet another IP: the budget is the business's
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await post('/probe-limits/per-business', auth(suite.other))).status).toBe(200);
  });
});

describe('rate limits without trusted proxies', () => {
  const suite = appPerSuite(() => startTestApi({}, [LimitedModule]));

  it('ignores X-Forwarded-For from an untrusted peer: changing it does not buy a new budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await fetch(`${suite.api.base}/probe-limits/per-ip`, { method: 'POST', headers: { 'x-forwarded-for': randomIp() } })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
