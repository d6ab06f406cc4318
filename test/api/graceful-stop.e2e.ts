import { Controller, Get, Module } from '@nestjs/common';
import { connect } from 'node:net';
import { CLOSING_RETRY_AFTER_SEC } from '../../apps/api/src/bootstrap';
import { Public } from '../../apps/api/src/auth/auth.decorators';
import { startTestApi } from '../support/fixtures';

let entered: () => void = () => undefined;
let release: () => void = () => undefined;

/** A request that runs until the test releases it: in flight while the server starts closing. */
@Controller('probe-close')
class HoldController {
  @Public()
  @Get('hold')
  async hold() {
    await new Promise<void>((resolve) => {
      release = resolve;
      entered();
    });
    return { data: { held: true } };
  }
}

@Module({ controllers: [HoldController] })
class HoldModule {}

/** The HTTP/1.1 responses in `raw`, in order: status, lower-cased headers, body. */
function parseResponses(raw: string): { status: number; headers: Record<string, string>; body: string }[] {
  const responses: { status: number; headers: Record<string, string>; body: string }[] = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length']);
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return responses;
}

/**
 * Graceful stop (SIGTERM): a request that reaches a closing server on a connection still open
 * (keep-alive or pipelined) gets 503 with the §7 envelope, `temporarily_unavailable` and
 * Retry-After — not Fastify's `{"error":"Service Unavailable",…,"statusCode":503}` (operator
 * audit 2026-11-29, F4). The request in flight when closing began still completes.
 */
describe('a closing server', () => {
  it('answers a request arriving while it closes 503 temporarily_unavailable in the §7 envelope with Retry-After', async () => {
    const api = await startTestApi({}, [HoldModule]);
    const socket = connect(api.port, '127.0.0.1');
    let raw = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const request = (path: string) => `GET /api/v1${path} HTTP/1.1\r\nHost: 127.0.0.1:${api.port}\r\nConnection: keep-alive\r\n\r\n`;

    const inFlight = new Promise<void>((resolve) => (entered = resolve));
    socket.write(request('/probe-close/hold'));
    await inFlight;
    const closed = api.close();
    // until the server has stopped listening (Nest runs its shutdown hooks, then closes Fastify)
    for (let i = 0; i < 200 && api.app.getHttpServer().listening; i++) await new Promise((r) => setTimeout(r, 10));
    expect(api.app.getHttpServer().listening).toBe(false);
    socket.write(request('/health/live'));
    await new Promise((r) => setTimeout(r, 50));
    release();
    await ended;
    await closed;

    const [first, second] = parseResponses(raw);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ data: { held: true } });
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe(String(CLOSING_RETRY_AFTER_SEC));
    expect(second.headers['content-type']).toMatch(/^application\/json/);
    expect(second.headers.connection).toBe('close');
    const body = JSON.parse(second.body) as { error: { code: string; message: string; field: null; request_id: string } };
    expect(body).toEqual({ error: { code: 'temporarily_unavailable', message: expect.any(String), field: null, request_id: expect.stringMatching(/^req_/) } });
    expect(second.headers['service-request-id']).toBe(body.error.request_id);
  }, 30_000);
});
