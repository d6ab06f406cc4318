import { Controller, Get, Module, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Writable } from 'node:stream';
import { BusinessService } from '@lib/businesses';
import { Public } from '../../apps/api/src/auth/auth.decorators';
import { eventually } from '../support/eventually';
import { TestApi, startTestApi } from '../support/api-app';

/** A careless route that logs everything it was sent: redaction must still hold. */
@Public()
@Controller('probe-log')
class CarelessController {
  @Get()
  careless(@Req() request: FastifyRequest) {
    request.log.info({ headers: request.headers, body: { secret_key: 'sk_live_from_body', password: 'hunter2' } }, 'careless');
    return { data: { ok: true } };
  }

  @Get('boom')
  boom(): never {
    throw new Error('kaboom');
  }
}
@Module({ controllers: [CarelessController] })
class CarelessModule {}

describe('JSON logs (pino)', () => {
  let api: TestApi;
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });

  beforeAll(async () => {
    api = await startTestApi({}, [CarelessModule], sink);
  });
  afterAll(async () => api?.close());

  const waitForLine = (match: (l: Record<string, unknown>) => boolean) =>
    eventually(() => lines.find(match), { what: `a matching log line among ${lines.length}` }).catch((error: Error) => {
      throw new Error(`${error.message}\nlines:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`);
    });

  it('writes one line per request with request id, route, status and duration', async () => {
    const { secret_key } = await api.app.get(BusinessService).createBusiness({ name: 'Log Shop', simulated: true });
    const response = await fetch(`${api.base}/business`, { headers: { authorization: `Bearer ${secret_key}` } });
    const requestId = response.headers.get('service-request-id');
    const line = await waitForLine((l) => l.request_id === requestId && l.msg === 'request');
    expect(line).toMatchObject({ level: 'info', service: 'payments', method: 'GET', route: '/api/v1/business', path: '/api/v1/business', status: 200 });
    expect(typeof line.duration_ms).toBe('number');
    expect(new Date(String(line.time)).toISOString()).toBe(line.time);
    expect(JSON.stringify(lines)).not.toContain(secret_key);

    const missing = await fetch(`${api.base}/business`, { headers: { authorization: 'Bearer sk_live_nope' } });
    const failed = await waitForLine((l) => l.request_id === missing.headers.get('service-request-id') && l.msg === 'request');
    expect(failed).toMatchObject({ status: 401, route: '/api/v1/business' });
  });

  it('redacts Authorization, cookies, keys and secrets even when code logs them', async () => {
    const { secret_key } = await api.app.get(BusinessService).createBusiness({ name: 'Careless', simulated: true });
    const response = await fetch(`${api.base}/probe-log`, { headers: { authorization: `Bearer ${secret_key}`, cookie: 'session=abc123' } });
    expect(response.status).toBe(200);
    const line = await waitForLine((l) => l.msg === 'careless');
    const text = JSON.stringify(lines);
    for (const secret of [secret_key, 'abc123', 'sk_live_from_body', 'hunter2']) expect(text).not.toContain(secret);
    expect(line).toMatchObject({ headers: { authorization: '[redacted]', cookie: '[redacted]' }, body: { secret_key: '[redacted]', password: '[redacted]' } });
  });

  it('logs an unexpected exception with its stack at error level (the client sees none of it)', async () => {
    const response = await fetch(`${api.base}/probe-log/boom`);
    expect(response.status).toBe(500);
    const requestId = response.headers.get('service-request-id')!;
    const error = await waitForLine((l) => l.level === 'error' && String(l.msg).includes(requestId));
    expect(String(error.trace)).toContain('kaboom');
    expect(await waitForLine((l) => l.request_id === requestId && l.msg === 'request')).toMatchObject({ level: 'error', status: 500 });
  });
});
