import { Controller, Get, Module, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Writable } from 'node:stream';
import { Public } from '../../apps/api/src/auth/auth.decorators';
import { eventually } from '../support/eventually';
import { appPerSuite, businessWithKey, startTestApi } from '../support/fixtures';

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

/**
 * The keys an object of a JSON text repeats, with their paths ("request_id", "req.request_id"):
 * JSON.parse keeps the last of two equal keys, so duplicates only show in the raw text.
 */
function duplicateKeys(text: string): string[] {
  const found: string[] = [];
  let i = 0;
  const space = () => {
    while (/\s/.test(text[i] ?? '')) i++;
  };
  const string = (): string => {
    const start = i;
    i++; // opening quote
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    space();
    if (text[i] === '{') {
      i++;
      const seen = new Set<string>();
      space();
      if (text[i] === '}') return void i++;
      for (;;) {
        space();
        const key = string();
        const where = path ? `${path}.${key}` : key;
        if (seen.has(key)) found.push(where);
        seen.add(key);
        space();
        i++; // colon
        value(where);
        space();
        if (text[i++] === '}') return;
      }
    }
    if (text[i] === '[') {
      i++;
      space();
      if (text[i] === ']') return void i++;
      for (let n = 0; ; n++) {
        value(`${path}.${n}`);
        space();
        if (text[i++] === ']') return;
      }
    }
    if (text[i] === '"') return void string();
    while (i < text.length && !/[,}\]\s]/.test(text[i])) i++; // number, true, false, null
  };
  value('');
  return found;
}

describe('JSON logs (pino)', () => {
  const lines: Record<string, unknown>[] = [];
  /** The lines as written, beside their parsed form (same index). */
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line));
      }
      done();
    },
  });

  const suite = appPerSuite(() => startTestApi({}, [CarelessModule], sink));

  const waitForLine = (match: (l: Record<string, unknown>) => boolean) =>
    eventually(() => lines.find(match), { what: `a matching log line among ${lines.length}` }).catch((error: Error) => {
      throw new Error(`${error.message}\nlines:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`);
    });

  it('writes one line per request with request id, route, status and duration', async () => {
    const { secret_key } = await businessWithKey(suite.api, true, 'Log Shop', { contact: false });
    const response = await fetch(`${suite.api.base}/business`, { headers: { authorization: `Bearer ${secret_key}` } });
    const requestId = response.headers.get('service-request-id');
    const line = await waitForLine((l) => l.request_id === requestId && l.msg === 'request');
    expect(line).toMatchObject({ level: 'info', service: 'payments', method: 'GET', route: '/api/v1/business', path: '/api/v1/business', status: 200 });
    expect(typeof line.duration_ms).toBe('number');
    expect(new Date(String(line.time)).toISOString()).toBe(line.time);
    expect(JSON.stringify(lines)).not.toContain(secret_key);

    const missing = await fetch(`${suite.api.base}/business`, { headers: { authorization: 'Bearer sk_live_nope' } });
    const failed = await waitForLine((l) => l.request_id === missing.headers.get('service-request-id') && l.msg === 'request');
    expect(failed).toMatchObject({ status: 401, route: '/api/v1/business' });
  });

  it('writes each field once: the raw JSON text of a request line (and of every line) repeats no key', async () => {
    expect(duplicateKeys('{"a":1,"b":{"a":[{"c":"}\\"","c":2}]},"a":3}')).toEqual(['b.a.0.c', 'a']); // the checker itself
    const response = await fetch(`${suite.api.base}/health`);
    const requestId = response.headers.get('service-request-id');
    const line = await waitForLine((l) => l.request_id === requestId && l.msg === 'request');
    const text = raw[lines.indexOf(line)];
    expect(text.split('"request_id"')).toHaveLength(2); // once
    expect(duplicateKeys(text)).toEqual([]);
    expect(raw.flatMap((l) => duplicateKeys(l).map((key) => `${key} in ${l}`))).toEqual([]);
  });

  it('redacts Authorization, cookies, keys and secrets even when code logs them', async () => {
    const { secret_key } = await businessWithKey(suite.api, true, 'Careless', { contact: false });
    const response = await fetch(`${suite.api.base}/probe-log`, { headers: { authorization: `Bearer ${secret_key}`, cookie: 'session=abc123' } });
    expect(response.status).toBe(200);
    const line = await waitForLine((l) => l.msg === 'careless');
    const text = JSON.stringify(lines);
    for (const secret of [secret_key, 'abc123', 'sk_live_from_body', 'hunter2']) expect(text).not.toContain(secret);
    expect(line).toMatchObject({ headers: { authorization: '[redacted]', cookie: '[redacted]' }, body: { secret_key: '[redacted]', password: '[redacted]' } });
  });

  it('logs an unexpected exception with its stack at error level (the client sees none of it)', async () => {
    const response = await fetch(`${suite.api.base}/probe-log/boom`);
    expect(response.status).toBe(500);
    const requestId = response.headers.get('service-request-id')!;
    const error = await waitForLine((l) => l.level === 'error' && String(l.msg).includes(requestId));
    expect(String(error.trace)).toContain('kaboom');
    expect(await waitForLine((l) => l.request_id === requestId && l.msg === 'request')).toMatchObject({ level: 'error', status: 500 });
  });
});
