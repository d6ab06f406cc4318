/**
 * `payments pauses set|clear|list` (issue 19 B14), run as a process through a running server's
 * admin endpoint: a paused action answers 503 temporarily_unavailable over HTTP within the
 * pauses' cache time (1 s), /health shows the pause, the operator is the events' actor.
 */
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { SERVICE_STREAM } from '@lib/operations';
import { businessWithKey } from '../support/fixtures';
import { cli, cliServerPerSuite } from '../support/cli';
import { eventually } from '../support/eventually';
import { withTestDatabase } from '../support/postgres';

describe('CLI pauses through a running server (embedded store, admin endpoint)', () => {
  const server = cliServerPerSuite();

  it('pauses new checkouts and one network (503 temporarily_unavailable, shown in /health), then lets them go', async () => {
    const { client: shop } = await businessWithKey(server.api, true, 'Paused Shop');
    const open = async (network: string) => {
      const payment = await shop.createPayment();
      return shop.postOnce('/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'USDC', network });
    };
    expect((await open('ethereum')).status).toBe(201);

    const set = await server.cli(['pauses', 'set', 'checkouts', '--reason', 'database maintenance', '--operator', 'ada']);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    const refused = await eventually(() => open('ethereum'), (a) => a.status === 503, { what: 'checkouts paused' });
    expect(refused.body.error.code).toBe('temporarily_unavailable');
    expect(refused.body.error.message).toMatch(/New checkouts are paused/);
    const health = (await shop.as(null).get('/health')).body.data;
    expect(health.pauses).toEqual([{ target: 'checkouts', reason: 'database maintenance', since: expect.stringMatching(/Z$/) }]);

    expect((await server.cli(['pauses', 'set', 'network:polygon', '--reason', 'node resync'])).code).toBe(0);
    expect((await server.cli(['pauses', 'clear', 'checkouts', '--operator', 'ada'])).code).toBe(0);
    await eventually(() => open('ethereum'), (a) => a.status === 201, { what: 'checkouts resumed' });
    const polygon = await open('polygon');
    expect([polygon.status, polygon.body.error?.code]).toEqual([503, 'temporarily_unavailable']);
    const listed = await server.cli(['pauses', 'list', '--json']);
    // JSON lines, as every list of the CLI: one pause per line
    expect(listed.stdout.trim().split('\n').map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ target: 'network:polygon', reason: 'node resync' })]);
    expect((await server.cli(['pauses', 'clear', 'network:polygon'])).code).toBe(0);
    await eventually(() => open('polygon'), (a) => a.status === 201, { what: 'polygon resumed' });

    const events = await server.api.app.get<EventStore>(EVENT_STORE).readStream(SERVICE_STREAM.stream('pauses'));
    expect(events.map((e) => [e.type, (e.data as { target: string }).target])).toEqual([
      ['ServicePaused', 'checkouts'],
      ['ServicePaused', 'network:polygon'],
      ['ServiceResumed', 'checkouts'],
      ['ServiceResumed', 'network:polygon'],
    ]);
    expect(events[0].metadata.actor).toMatchObject({ kind: 'operator', id: 'ada' });
  });

  it('says so, exit 2 and nothing on stdout, when clearing what is not paused or pausing what is: nothing is recorded, the pause keeps its reason', async () => {
    const stream = SERVICE_STREAM.stream('pauses');
    const recorded = async () => (await server.api.app.get<EventStore>(EVENT_STORE).readStream(stream).catch(() => [])).length;
    const before = await recorded();

    for (const args of [['pauses', 'clear', 'signups'], ['pauses', 'clear', 'signups', '--json']]) {
      const cleared = await server.cli(args);
      expect(cleared).toMatchObject({ code: 2, stdout: '', stderr: 'signups is not paused: nothing was resumed\n' });
    }
    expect(await recorded()).toBe(before);

    expect(await server.cli(['pauses', 'set', 'signups', '--reason', 'sign-up abuse', '--operator', 'ada'])).toMatchObject({ code: 0, stderr: '' });
    const again = await server.cli(['pauses', 'set', 'signups', '--reason', 'another reason', '--operator', 'bob', '--json']);
    expect(again).toMatchObject({ code: 2, stdout: '' });
    expect(again.stderr).toMatch(/^signups is already paused since \d{4}-\d\d-\d\dT[\d:.]+Z by ada, reason "sign-up abuse": nothing changed \("pauses clear signups" first/);
    const listed = await server.cli(['pauses', 'list', '--json']);
    expect(listed.stdout.trim().split('\n').map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ target: 'signups', reason: 'sign-up abuse', by: 'ada' })]);
    expect(await recorded()).toBe(before + 1);

    const resumed = await server.cli(['pauses', 'clear', 'signups']);
    expect(resumed).toMatchObject({ code: 0, stdout: 'resumed signups\n', stderr: '' });
    expect(await server.cli(['pauses', 'clear', 'signups'])).toMatchObject({ code: 2, stdout: '' });
    expect(await recorded()).toBe(before + 2);
  });

  it('names what can be paused when the target is unknown, and refuses a pause without a reason', async () => {
    const unknown = await server.cli(['pauses', 'set', 'everything', '--reason', 'x']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/checkouts, card_payments, signups, network:ethereum/);
    const noReason = await server.cli(['pauses', 'set', 'checkouts']);
    expect(noReason.code).not.toBe(0);
    expect(noReason.stderr).toMatch(/--reason/);
  });
});

describe('CLI pauses directly on PostgreSQL', () => {
  it('clearing what is not paused says so with exit 2, as through a server', async () => {
    await withTestDatabase('clipause', async (pg) => {
      expect(await cli(['pauses', 'clear', 'checkouts'], { DATABASE_URL: pg.url })).toMatchObject({ code: 2, stdout: '', stderr: 'checkouts is not paused: nothing was resumed\n' });
      expect(await cli(['pauses', 'set', 'checkouts', '--reason', 'maintenance'], { DATABASE_URL: pg.url })).toMatchObject({ code: 0, stderr: '' });
      expect(await cli(['pauses', 'set', 'checkouts', '--reason', 'again'], { DATABASE_URL: pg.url })).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^checkouts is already paused since .*, reason "maintenance": nothing changed/) });
      expect(await cli(['pauses', 'clear', 'checkouts'], { DATABASE_URL: pg.url })).toMatchObject({ code: 0, stdout: 'resumed checkouts\n' });
    });
  });
});
