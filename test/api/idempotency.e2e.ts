import { Body, Controller, HttpCode, Inject, Module, Patch, Post } from '@nestjs/common';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { ApiError } from '@lib/http';
import { Public } from '../../apps/api/src/auth/auth.decorators';
import { Auth, RequestAuth } from '../../apps/api/src/auth/request-auth';
import { IDEMPOTENCY_IN_USE_RETRY_AFTER_SEC, IdempotencyKeyIgnored, IdempotencyKeyRequired } from '../../apps/api/src/platform/idempotency.interceptor';
import { appPerSuite, businessWithKey, startTestApi } from '../support/fixtures';
import { TEST_REDIS_URL } from '../support/redis';

class EffectBody {
  @IsString() label!: string;
  @IsOptional() @IsBoolean() fail?: boolean;
  @IsOptional() @IsBoolean() slow?: boolean;
}

let failuresLeft = 0;

/** Each call has one visible effect: an event appended to the log, counted by label. */
@Controller('probe-idem')
class EffectController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  private async effect(label: string, auth: RequestAuth, slow?: boolean) {
    if (slow) await new Promise((r) => setTimeout(r, 300));
    const id = randomUUID();
    await this.store.append(`effect-${label}`, [{ id, type: 'Effect', data: { label } }], 'any');
    return { data: { kind: 'effect', id, label, business: auth.kind === 'api_key' ? auth.business.id : null } };
  }

  @Post('effects')
  async create(@Body() body: EffectBody, @Auth() auth: RequestAuth) {
    if (body.fail && failuresLeft-- > 0) throw new ApiError('temporarily_unavailable', 'try again');
    return this.effect(body.label, auth, body.slow);
  }

  @IdempotencyKeyRequired()
  @Post('required')
  required(@Body() body: EffectBody, @Auth() auth: RequestAuth) {
    return this.effect(body.label, auth);
  }

  @IdempotencyKeyIgnored()
  @Post('ignored')
  ignored(@Body() body: EffectBody, @Auth() auth: RequestAuth) {
    return this.effect(body.label, auth);
  }

  @HttpCode(200)
  @Post('effects/:id/act')
  act(@Body() body: EffectBody, @Auth() auth: RequestAuth) {
    return this.effect(body.label, auth);
  }

  @Patch('effects')
  patch(@Body() body: EffectBody, @Auth() auth: RequestAuth) {
    return this.effect(body.label, auth);
  }

  @Public()
  @Post('public')
  open(@Body() body: EffectBody, @Auth() auth: RequestAuth) {
    return this.effect(body.label, auth);
  }
}
@Module({ controllers: [EffectController] })
class EffectModule {}

const backends: [string, NodeJS.ProcessEnv][] = [
  ['the embedded database', {}],
  ['Redis', { REDIS_URL: TEST_REDIS_URL }],
];

describe.each(backends)('idempotency keys (spec §8) stored in %s', (_name, env) => {
  const suite = appPerSuite(
    () => startTestApi(env, [EffectModule]),
    async (api) => ({
      shop: await businessWithKey(api, true, 'Shop', { contact: false }),
      other: await businessWithKey(api, true, 'Other', { contact: false }),
    }),
  );

  const send = async (method: string, path: string, body: unknown, options: { key?: string; secret?: string | null } = {}) => {
    type Json = { data: { id: string; business: string | null }; error: { code: string; field?: string } };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.key !== undefined) headers['idempotency-key'] = options.key;
    if (options.secret !== null) headers.authorization = `Bearer ${options.secret ?? suite.shop.secret_key}`;
    const response = await fetch(`${suite.api.base}${path}`, { method, headers, body: JSON.stringify(body) });
    return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as Json };
  };
  /** send(), and the Retry-After the answer carried. */
  const sendTimed = async (method: string, path: string, body: unknown, key: string) => {
    const response = await fetch(`${suite.api.base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'idempotency-key': key, authorization: `Bearer ${suite.shop.secret_key}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), code: ((await response.json()) as { error?: { code: string } }).error?.code };
  };
  const effects = async (label: string) => {
    try {
      return (await suite.api.app.get<EventStore>(EVENT_STORE).readStream(`effect-${label}`)).length;
    } catch {
      return 0;
    }
  };
  const label = () => `l${randomUUID().slice(0, 8)}`;

  it('replays a 2xx for the same key, method, path and body with Idempotent-Replayed: true, and does it once', async () => {
    const l = label();
    const key = randomUUID();
    const first = await send('POST', '/probe-idem/effects', { label: l }, { key });
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    const again = await send('POST', '/probe-idem/effects', { label: l }, { key });
    expect(again).toEqual({ status: 201, replayed: 'true', body: first.body });
    // the same members in another order are the same body
    const reordered = await fetch(`${suite.api.base}/probe-idem/effects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `${key}-order`, authorization: `Bearer ${suite.shop.secret_key}` },
      body: `{"label": "${l}-o", "slow": false}`,
    });
    const reorderedAgain = await fetch(`${suite.api.base}/probe-idem/effects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `${key}-order`, authorization: `Bearer ${suite.shop.secret_key}` },
      body: `{"slow":false,"label":"${l}-o"}`,
    });
    expect([reordered.status, reorderedAgain.status, reorderedAgain.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect(await reorderedAgain.json()).toEqual(await reordered.json());
    expect(await effects(`${l}-o`)).toBe(1);
    const act = await send('POST', '/probe-idem/effects/x/act', { label: l }, { key: `${key}-act` });
    expect((await send('POST', '/probe-idem/effects/x/act', { label: l }, { key: `${key}-act` })).status).toBe(act.status);
    expect(act.status).toBe(200); // a replay answers with the route's own status
    expect(await effects(l)).toBe(2);
  });

  /** What a request's crash leaves once its lock has expired: its writes, no kept response (the key is free). */
  const forget = async (key: string) => {
    if (env.REDIS_URL) {
      const redis = new Redis(env.REDIS_URL);
      try {
        const keys = await redis.keys(`*:${key}`);
        expect(keys).toHaveLength(1);
        await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    } else {
      const { rowCount } = await suite.api.app.get<Database>(DATABASE).query(`DELETE FROM idempotency_keys WHERE key = $1`, [key]);
      expect(rowCount).toBe(1);
    }
  };

  it('a retry after the first run died between its write and its kept response finds that payment, never a second (audit, 2026-11-28)', async () => {
    const key = randomUUID();
    const body = { amount: 2500, currency: 'USD', metadata: { order_id: 'crash-1' } };
    const first = await send('POST', '/payments', body, { key });
    expect(first.status).toBe(201);
    await forget(key);
    const again = await send('POST', '/payments', body, { key });
    expect(again.status).toBe(201);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.body).toEqual(first.body); // the payment as it is: nothing written twice
    // the key, once free, with another body is another request: another payment
    await forget(key);
    const other = await send('POST', '/payments', { ...body, amount: 2600 }, { key });
    expect(other.status).toBe(201);
    expect(other.body.data.id).not.toBe(first.body.data.id);
  });

  it('a retry of POST /checkouts after the first run died between its write and its kept response answers that checkout, never opens a second', async () => {
    const payment = (await send('POST', '/payments', { amount: 2500, currency: 'USD' })).body.data as unknown as { id: string; url: string };
    const key = randomUUID();
    const body = { payment_code: payment.url.split('/').pop(), asset: 'USDC', network: 'ethereum' };
    const first = await send('POST', '/checkouts', body, { key });
    expect(first.status).toBe(201);
    await forget(key);
    const again = await send('POST', '/checkouts', body, { key });
    expect([again.status, again.replayed, again.body.data.id]).toEqual([201, null, first.body.data.id]);
    expect(again.body).toEqual(first.body); // the checkout as it is: same address, same quote
    const shown = (await send('GET', `/payments/${payment.id}`, undefined)).body.data as unknown as { checkout_id: string; events: { type: string }[] };
    expect(shown.checkout_id).toBe(first.body.data.id);
    expect(shown.events.filter((e) => e.type === 'method_selected')).toHaveLength(1); // one checkout opened
  });

  it('a retry of POST /links after the first run died between its write and its kept response answers that link, never creates a second', async () => {
    const key = randomUUID();
    const body = { name: `Crash ${key.slice(0, 6)}`, amount: 1500, currency: 'USD' };
    const first = await send('POST', '/links', body, { key });
    expect(first.status).toBe(201);
    await forget(key);
    const again = await send('POST', '/links', body, { key });
    expect([again.status, again.body.data.id]).toEqual([201, first.body.data.id]);
    expect(again.body).toEqual(first.body); // same id, same code and url
    const listed = (await send('GET', '/links?limit=100', undefined)).body as unknown as { data: { name: string }[] };
    expect(listed.data.filter((l) => l.name === body.name)).toHaveLength(1);
  });

  it('refuses the key for a different method, path or body (409 idempotency_key_reused)', async () => {
    const l = label();
    const key = randomUUID();
    await send('POST', '/probe-idem/effects', { label: l }, { key });
    const otherBody = await send('POST', '/probe-idem/effects', { label: `${l}x` }, { key });
    expect(otherBody.status).toBe(409);
    expect(otherBody.body.error).toMatchObject({ code: 'idempotency_key_reused', field: 'Idempotency-Key' });
    expect((await send('POST', '/probe-idem/effects/y/act', { label: l }, { key })).body.error.code).toBe('idempotency_key_reused');
    expect(await effects(l)).toBe(1);
    expect(await effects(`${l}x`)).toBe(0);
  });

  it('keeps keys per business', async () => {
    const l = label();
    const key = randomUUID();
    const mine = await send('POST', '/probe-idem/effects', { label: l }, { key });
    const theirs = await send('POST', '/probe-idem/effects', { label: l }, { key, secret: suite.other.secret_key });
    expect([mine.status, theirs.status, theirs.replayed]).toEqual([201, 201, null]);
    expect(theirs.body.data.business).toBe(suite.other.business.id);
    expect(await effects(l)).toBe(2);
  });

  it('does not keep errors: the key is free again after a failure', async () => {
    const l = label();
    const key = randomUUID();
    failuresLeft = 1;
    const failed = await send('POST', '/probe-idem/effects', { label: l, fail: true }, { key });
    expect(failed.status).toBe(503);
    const retried = await send('POST', '/probe-idem/effects', { label: l, fail: true }, { key });
    expect([retried.status, retried.replayed]).toEqual([201, null]);
    expect(await effects(l)).toBe(1);
    // an invalid body (400) is an error too: not kept
    expect((await send('POST', '/probe-idem/effects', { label: 5 }, { key: `${key}-v` })).status).toBe(400);
    expect((await send('POST', '/probe-idem/effects', { label: l }, { key: `${key}-v` })).status).toBe(201);
  });

  it('answers 20 concurrent requests with one key with exactly one effect; the rest replay or get idempotency_key_in_use', async () => {
    const l = label();
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, () => send('POST', '/probe-idem/effects', { label: l, slow: true }, { key })));
    const created = results.filter((r) => r.status === 201 && r.replayed === null);
    const replayed = results.filter((r) => r.status === 201 && r.replayed === 'true');
    const inUse = results.filter((r) => r.status === 409 && r.body.error.code === 'idempotency_key_in_use');
    expect(created).toHaveLength(1);
    expect(replayed.length + inUse.length).toBe(19);
    expect(inUse.length).toBeGreaterThan(0);
    for (const r of replayed) expect(r.body).toEqual(created[0].body);
    expect(await effects(l)).toBe(1);
  });

  it('answers idempotency_key_in_use with Retry-After (operator audit 2026-11-29, F5)', async () => {
    const l = label();
    const key = randomUUID();
    // the first is slow (300 ms): the second arrives while it runs
    const first = sendTimed('POST', '/probe-idem/effects', { label: l, slow: true }, key);
    await new Promise((r) => setTimeout(r, 100));
    const second = await sendTimed('POST', '/probe-idem/effects', { label: l, slow: true }, key);
    expect(second).toEqual({ status: 409, code: 'idempotency_key_in_use', retryAfter: String(IDEMPOTENCY_IN_USE_RETRY_AFTER_SEC) });
    expect(IDEMPOTENCY_IN_USE_RETRY_AFTER_SEC).toBeGreaterThanOrEqual(1);
    expect(await first).toEqual({ status: 201, code: undefined, retryAfter: null });
    expect(await effects(l)).toBe(1);
  });

  it('checks the key: 1 to 255 characters, required where §8.7 says, ignored where §8.8 says and on PATCH', async () => {
    const l = label();
    for (const key of ['', 'k'.repeat(256)]) {
      const r = await send('POST', '/probe-idem/effects', { label: l }, { key });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key' });
    }
    expect((await send('POST', '/probe-idem/effects', { label: l }, { key: 'k'.repeat(255) })).status).toBe(201);
    const missing = await send('POST', '/probe-idem/required', { label: l });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'idempotency_key_required', field: 'Idempotency-Key' });
    const key = randomUUID();
    for (const path of ['/probe-idem/ignored', '/probe-idem/ignored']) {
      const r = await send('POST', path, { label: l }, { key });
      expect([r.status, r.replayed]).toEqual([201, null]);
    }
    for (let i = 0; i < 2; i++) expect((await send('PATCH', '/probe-idem/effects', { label: l }, { key })).replayed).toBeNull();
    expect(await effects(l)).toBe(1 + 2 + 2);
  });

  it('keeps a request without a business key by key and body together (a new body is a new request)', async () => {
    const l = label();
    const key = randomUUID();
    const a = await send('POST', '/probe-idem/public', { label: l }, { key, secret: null });
    const again = await send('POST', '/probe-idem/public', { label: l }, { key, secret: null });
    const b = await send('POST', '/probe-idem/public', { label: `${l}b` }, { key, secret: null });
    expect([a.status, again.replayed, b.status, b.replayed]).toEqual([201, 'true', 201, null]);
    expect(again.body).toEqual(a.body);
    expect(await effects(l)).toBe(1);
    expect(await effects(`${l}b`)).toBe(1);
  });
});
