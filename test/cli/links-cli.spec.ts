/**
 * `payments links disable <lnk_id> --reason …` (decision 0030), run as a process: through a
 * running server's admin endpoint (the app owns the embedded store), and directly on the store
 * (PostgreSQL) while an API process serves on the same database. The operator is the actor.
 */
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { LINK_STREAM } from '@lib/links';
import { Client, businessWithKey, startTestApi } from '../support/fixtures';
import { cli, cliServerPerSuite } from '../support/cli';
import { eventually } from '../support/eventually';
import { createTestDatabase } from '../support/postgres';

const newLink = async (client: Client) => (await client.post('/links', { name: 'Mug', amount: 1500, currency: 'USD' })).body.data;
const openOn = (client: Client, code: string) => client.as(null).postOnce('/checkouts', { link_code: code, asset: 'USDC', network: 'ethereum' });

describe('CLI links disable through a running server (embedded store, admin endpoint)', () => {
  const server = cliServerPerSuite();

  it('disables (checkouts 404 link_not_found, restore 409 link_disabled), names the operator, explains mistakes', async () => {
    const { client } = await businessWithKey(server.api, true, 'Link Shop');
    const link = await newLink(client);
    expect((await openOn(client, link.code)).status).toBe(201);

    const run = await server.cli(['links', 'disable', link.id, '--reason', 'Phishing reports', '--operator', 'ada', '--json']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ id: link.id, business_id: expect.stringMatching(/^biz_/), status: 'disabled' });
    expect((await client.get(`/links/${link.id}`)).body.data.status).toBe('disabled');
    const closed = await openOn(client, link.code);
    expect([closed.status, closed.body.error?.code]).toEqual([404, 'link_not_found']);
    const restore = await client.post(`/links/${link.id}/restore`);
    expect([restore.status, restore.body.error?.code]).toEqual([409, 'link_disabled']);
    const events = await server.api.app.get<EventStore>(EVENT_STORE).readStream(LINK_STREAM.stream(link.id));
    expect(events.at(-1)).toMatchObject({ type: 'LinkDisabled', data: { reason: 'Phishing reports' }, metadata: { actor: { kind: 'operator', id: 'ada' } } });

    // again: nothing changes, and the CLI says so (exit 2, nothing on stdout) rather than "disabled"
    for (const args of [['links', 'disable', link.id, '--reason', 'Another reason'], ['links', 'disable', link.id, '--reason', 'Another reason', '--json']]) {
      const again = await server.cli(args);
      expect(again).toMatchObject({ code: 2, stdout: '' });
      expect(again.stderr).toMatch(/^link_disabled: This link is already disabled: nothing changed/);
    }
    const after = await server.api.app.get<EventStore>(EVENT_STORE).readStream(LINK_STREAM.stream(link.id));
    expect(after).toHaveLength(events.length);

    const unknown = await server.cli(['links', 'disable', 'lnk_doesnotexist', '--reason', 'x']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/^not_found: No link with this id\./);
    const missing = await server.cli(['links', 'disable', link.id]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--reason/);
    const other = await newLink(client);
    const blank = await server.cli(['links', 'disable', other.id, '--reason', '  ']);
    expect(blank.stderr).toMatch(/^invalid_request: /);
    expect((await client.get(`/links/${other.id}`)).body.data.status).toBe('active');
  });
});

describe('CLI links disable directly on PostgreSQL, with an API process on the same database', () => {
  it('the API refuses checkouts on the disabled link', async () => {
    const pg = await createTestDatabase('clilinks');
    const api = await startTestApi({ DATABASE_URL: pg.url, TRUSTED_PROXIES: 'loopback' });
    try {
      const { client } = await businessWithKey(api, true, 'Remote Links');
      const link = await newLink(client);
      const run = await cli(['links', 'disable', link.id, '--reason', 'Fraud', '--operator', 'bob'], { DATABASE_URL: pg.url });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(new RegExp(`^disabled ${link.id} of biz_\\w+\\n$`));
      await eventually(() => client.get(`/links/${link.id}`), (r) => r.body.data?.status === 'disabled', { what: 'the link disabled in the read model', timeoutMs: 10_000 });
      expect((await openOn(client, link.code)).body.error?.code).toBe('link_not_found');
    } finally {
      await api.close();
      await pg.drop();
    }
  });
});
